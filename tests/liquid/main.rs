//! The liquid on its own: start, rest, momentum, walls and wall friction, emitters and outlets,
//! a shaped block that splashes, and the column collapses of Martin & Moyce and Koshizuka & Oka.
//! One test binary per area, so the crate is linked a few times rather than once per file.
#[path = "../common/mod.rs"]
mod common;
mod gauges;
mod martin_moyce;
mod momentum;
mod rest;
mod shapes;
mod sources;
mod start;
mod wall_friction;
mod walls;
