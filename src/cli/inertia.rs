//! `sphrigid inertia`: mass properties of a mesh and of its particle clump.
use crate::Result;

/// Arguments of `sphrigid inertia`.
#[derive(Debug, clap::Args)]
pub struct InertiaArgs {}

/// Run `sphrigid inertia`.
pub fn run(_args: InertiaArgs) -> Result<()> {
    Err(crate::Error::Run("sphrigid inertia: not built yet".into()))
}
