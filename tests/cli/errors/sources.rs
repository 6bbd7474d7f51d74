//! Bad `[[emitter]]` and `[[outlet]]` tables: one line naming the file, the key and its line,
//! and the fix; exit status 2.
use super::{GOOD, check_bad};

const JET: &str = "\n[[emitter]]\nshape = { type = \"circle\", radius = 0.015 }\nposition = [0.05, 0.08, 0.05]\ndirection = [0, -1, 0]\nspeed = 1.0\n";

#[test]
fn an_emitter_outside_the_container_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{GOOD}{JET}").replace(
        "position = [0.05, 0.08, 0.05]",
        "position = [0.05, 0.08, 0.095]",
    );
    check_bad(
        dir.path(),
        &text,
        &["emitter[0].position", "container", "bad.toml:16"],
    );
}

#[test]
fn a_zero_area_nozzle_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{GOOD}{JET}").replace("radius = 0.015", "radius = 0.0");
    check_bad(
        dir.path(),
        &text,
        &["emitter[0].shape.radius", "spacing", "bad.toml:15"],
    );
    let rect = format!("{GOOD}{JET}").replace(
        "{ type = \"circle\", radius = 0.015 }",
        "{ type = \"rectangle\", size = [0.02, 0.004] }",
    );
    check_bad(dir.path(), &rect, &["emitter[0].shape.size", "bad.toml:15"]);
}

#[test]
fn an_emitter_without_its_liquid_block_or_speed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{GOOD}{JET}liquid = 3\n");
    check_bad(dir.path(), &text, &["emitter[0].liquid", "liquid[3]"]);
    let text = format!("{GOOD}{JET}").replace("speed = 1.0", "speed = -2.0");
    check_bad(dir.path(), &text, &["emitter[0].speed", "bad.toml:18"]);
    let text = format!("{GOOD}{JET}").replace("direction = [0, -1, 0]", "direction = [0, 0, 0]");
    check_bad(dir.path(), &text, &["emitter[0].direction", "bad.toml:17"]);
}

#[test]
fn an_outlet_that_covers_the_whole_tank_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{GOOD}\n[[outlet]]\nmin = [-1, -1, -1]\nmax = [1, 1, 1]\n");
    check_bad(
        dir.path(),
        &text,
        &["outlet[0].max", "whole container", "bad.toml:16"],
    );
    let text = format!("{GOOD}\n[[outlet]]\nface = \"x_max\"\ndepth = 0.2\n");
    check_bad(dir.path(), &text, &["outlet[0].depth", "whole container"]);
    let text =
        format!("{GOOD}\n[[outlet]]\nface = \"x_max\"\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\n");
    check_bad(dir.path(), &text, &["outlet[0].face", "either"]);
}

#[test]
fn a_nozzle_inside_an_outlet_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{GOOD}{JET}\n[[outlet]]\nmin = [0.0, 0.06, 0.0]\nmax = [0.1, 0.1, 0.1]\n");
    check_bad(dir.path(), &text, &["emitter[0].position", "outlet[0]"]);
}
