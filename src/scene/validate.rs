//! Checks on a parsed scene: walks its tables in order (gravity, time, solver, container,
//! liquid, coupling, bodies, joints, gauges, emitters, outlets) and calls each table's check; what no single table can
//! check (unique body, joint and gauge names) is checked here.
use super::locate::KeyPath;
use super::problem::{Checked, fail, finite3};
use super::schema::Scene;
use std::collections::HashSet;

/// Check every value of the scene; the first problem found is returned.
pub fn validate(scene: &Scene) -> Checked {
    let root = KeyPath::new();
    if !finite3(&scene.gravity) {
        return fail(
            root.key("gravity"),
            format!("{:?} is not finite", scene.gravity),
            "give three numbers in m/s^2",
        );
    }
    scene.time.check(&root.key("time"))?;
    scene.solver.check(&root.key("solver"))?;
    if let Some(c) = &scene.container {
        c.check(&root.key("container"))?;
    }
    for (i, b) in scene.liquid.iter().enumerate() {
        b.check(
            &root.key("liquid").index(i),
            scene.container.as_ref(),
            &scene.liquid[0],
        )?;
    }
    scene
        .coupling
        .check(&root.key("coupling"), &scene.body, !scene.joint.is_empty())?;
    let mut names = HashSet::new();
    for (i, b) in scene.body.iter().enumerate() {
        let p = root.key("body").index(i);
        b.check(&p)?;
        if !names.insert(b.name.as_str()) {
            return fail(
                p.key("name"),
                format!("a second body is named '{}'", b.name),
                "give every body its own name (it names the output files)",
            );
        }
    }
    let mut joint_names = HashSet::new();
    for (i, j) in scene.joint.iter().enumerate() {
        let p = root.key("joint").index(i);
        j.check(&p, &scene.body)?;
        if !joint_names.insert(j.name_or_default(i)) {
            return fail(
                p.key("name"),
                format!("a second joint is named '{}'", j.name_or_default(i)),
                "give every joint its own name (it names the joint's rows in joint_errors.csv)",
            );
        }
    }
    let mut gauge_names = HashSet::new();
    for (i, g) in scene.gauge.iter().enumerate() {
        let p = root.key("gauge").index(i);
        g.check(&p, scene.container.as_ref(), scene.gravity)?;
        if !gauge_names.insert(g.name.as_str()) {
            return fail(
                p.key("name"),
                format!("a second gauge is named '{}'", g.name),
                "give every gauge its own name (it names the gauge's column in gauges.csv)",
            );
        }
    }
    let spacing = scene.liquid.first().map_or(0.01, |b| b.spacing);
    for (i, e) in scene.emitter.iter().enumerate() {
        e.check(
            &root.key("emitter").index(i),
            &scene.liquid,
            scene.container.as_ref(),
        )?;
    }
    for (i, o) in scene.outlet.iter().enumerate() {
        o.check(
            &root.key("outlet").index(i),
            scene.container.as_ref(),
            spacing,
        )?;
    }
    let c = scene.container.as_ref();
    super::sources::check_pair(&scene.emitter, &scene.outlet, c, spacing, &root)?;
    super::limits::check(scene)
}
