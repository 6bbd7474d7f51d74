//! `sphrigid lcp`: solve a linear complementarity problem from a JSON file.
use crate::Result;

/// Arguments of `sphrigid lcp`.
#[derive(Debug, clap::Args)]
pub struct LcpArgs {}

/// Run `sphrigid lcp`.
pub fn run(_args: LcpArgs) -> Result<()> {
    Err(crate::Error::Run("sphrigid lcp: not built yet".into()))
}
