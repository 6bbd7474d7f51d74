//! `sphrigid inertia`: mass properties of a mesh and of its particle clump.
use crate::rigid::mass_properties::{MassProperties, frobenius};
use crate::rigid::sampling;
use crate::rigid::shape::{MeshSolid, Shape};
use crate::{Error, Result};
use serde_json::{Value, json};
use std::path::PathBuf;

/// Particles across the smallest extent of the mesh when no spacing is given.
pub const DEFAULT_PARTICLES_ACROSS: f64 = 20.0;

/// Arguments of `sphrigid inertia`.
#[derive(Debug, clap::Args)]
pub struct InertiaArgs {
    /// Closed triangle mesh (.ply or .obj), faces counter-clockwise seen from outside.
    pub mesh: PathBuf,
    /// Density of the solid (kg/m^3).
    #[arg(long, default_value_t = 1000.0)]
    pub density: f64,
    /// Lattice spacing of the clump [default: smallest extent of the mesh / 20].
    #[arg(long)]
    pub spacing: Option<f64>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Mass properties of the exact solid and of its clump, as `sphrigid inertia` reports them.
#[derive(Debug, Clone)]
pub struct InertiaReport {
    /// The exact solid.
    pub solid: MassProperties,
    /// The particle clump.
    pub clump: MassProperties,
    /// Number of particles in the clump.
    pub particles: usize,
    /// Lattice spacing used.
    pub spacing: f64,
    /// Whether the mesh was inside out and had its faces flipped.
    pub flipped: bool,
}

impl InertiaReport {
    /// `|I_clump - I_solid|_F / |I_solid|_F`.
    pub fn inertia_relative_difference(&self) -> f64 {
        self.clump.inertia_relative_difference(&self.solid)
    }

    /// Distance between the two centres of mass over the cube root of the volume.
    pub fn com_relative_difference(&self) -> f64 {
        (self.clump.com - self.solid.com).length() / self.solid.volume.cbrt()
    }

    /// `|V_clump - V_solid| / V_solid`.
    pub fn volume_relative_difference(&self) -> f64 {
        (self.clump.volume - self.solid.volume).abs() / self.solid.volume
    }
}

/// Compute the report for a mesh file.
pub fn compute(args: &InertiaArgs) -> Result<InertiaReport> {
    if !(args.density.is_finite() && args.density > 0.0) {
        return Err(Error::input(format!(
            "--density must be a positive number, got {}; fix: give a density in kg/m^3, e.g. 1000",
            args.density
        )));
    }
    let (mesh, validation) = crate::output::mesh_files::load(&args.mesh)?;
    let (lo, hi) = mesh.bounds();
    let spacing = args
        .spacing
        .unwrap_or_else(|| (hi - lo).min_element() / DEFAULT_PARTICLES_ACROSS);
    let shape = Shape::Mesh(MeshSolid::new(mesh));
    let solid = shape.mass_properties(args.density);
    let clump = sampling::sample(
        &shape,
        spacing,
        args.density,
        &args.mesh.display().to_string(),
    )?;
    Ok(InertiaReport {
        solid,
        clump: clump.mass_properties(),
        particles: clump.len(),
        spacing,
        flipped: validation.flipped,
    })
}

fn mp_json(m: &MassProperties) -> Value {
    let i = m.inertia.transpose(); // rows of I as columns
    json!({
        "volume": m.volume,
        "mass": m.mass,
        "com": m.com.to_array(),
        "inertia": [i.x_axis.to_array(), i.y_axis.to_array(), i.z_axis.to_array()],
    })
}

/// The report as the JSON object `--json` prints.
pub fn to_json(r: &InertiaReport) -> Value {
    let mut v = mp_json(&r.solid);
    let mut clump = mp_json(&r.clump);
    clump["particles"] = json!(r.particles);
    clump["spacing"] = json!(r.spacing);
    v["clump"] = clump;
    v["relative_difference"] = json!({
        "inertia": r.inertia_relative_difference(),
        "com": r.com_relative_difference(),
        "volume": r.volume_relative_difference(),
    });
    v["flipped"] = json!(r.flipped);
    v
}

fn table(r: &InertiaReport, path: &str) -> String {
    let mut s = String::new();
    s.push_str(&format!("mesh {path}\n"));
    let row = |name: &str, a: &MassProperties| {
        let i = a.inertia;
        format!(
            "{name}\n  volume   {:.9e}\n  mass     {:.9e}\n  com      {:.9e} {:.9e} {:.9e}\n  inertia  {:.9e} {:.9e} {:.9e}\n           {:.9e} {:.9e} {:.9e}\n           {:.9e} {:.9e} {:.9e}\n",
            a.volume,
            a.mass,
            a.com.x,
            a.com.y,
            a.com.z,
            i.x_axis.x,
            i.y_axis.x,
            i.z_axis.x,
            i.x_axis.y,
            i.y_axis.y,
            i.z_axis.y,
            i.x_axis.z,
            i.y_axis.z,
            i.z_axis.z,
        )
    };
    s.push_str(&row("exact solid (about its centre of mass)", &r.solid));
    s.push_str(&row(
        &format!(
            "clump: {} particles, spacing {}, radius {}",
            r.particles,
            r.spacing,
            r.spacing / 2.0
        ),
        &r.clump,
    ));
    s.push_str(&format!(
        "relative difference\n  inertia  {:.3e} (|I_clump - I|_F / |I|_F, |I|_F = {:.6e})\n  com      {:.3e} (distance / volume^(1/3))\n  volume   {:.3e}\n",
        r.inertia_relative_difference(),
        frobenius(r.solid.inertia),
        r.com_relative_difference(),
        r.volume_relative_difference()
    ));
    s
}

/// Run `sphrigid inertia`.
pub fn run(args: InertiaArgs) -> Result<()> {
    let report = compute(&args)?;
    if report.flipped {
        eprintln!(
            "note: {}",
            crate::output::mesh_files::flipped_note(&args.mesh)
        );
    }
    if args.json {
        super::print_out(&format!("{}\n", to_json(&report)))?;
    } else {
        super::print_out(&table(&report, &args.mesh.display().to_string()))?;
    }
    Ok(())
}
