//! Choosing the compute backend: `auto`, `cpu` or `gpu`.
use crate::{Error, Result};

/// A compute backend that runs the liquid step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The rayon CPU solver.
    Cpu,
}

impl Backend {
    /// The backend's name in reports and the manifest.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
        }
    }

    /// Resolve the `--backend` argument (`auto`, `cpu` or `gpu`) to a backend this build has,
    /// with a line that says which was chosen and why.
    pub fn choose(requested: &str) -> Result<(Backend, String)> {
        match requested {
            "cpu" => Ok((Backend::Cpu, "backend: cpu (requested)".into())),
            "auto" => Ok((
                Backend::Cpu,
                "backend: cpu (auto: this build has no GPU backend)".into(),
            )),
            "gpu" => Err(Error::input(
                "--backend gpu: this build of sphrigid has no GPU backend yet; fix: use --backend cpu or auto",
            )),
            other => Err(Error::input(format!(
                "--backend {other}: unknown backend; fix: use auto, cpu or gpu"
            ))),
        }
    }
}
