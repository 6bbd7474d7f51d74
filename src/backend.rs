//! Choosing the compute backend: `auto`, `cpu` or `gpu`.
use crate::gpu::context::{self, AdapterKind};
use crate::{Error, Result};

/// A compute backend that runs the liquid step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The rayon CPU solver.
    Cpu,
    /// WGSL compute kernels through wgpu.
    Gpu,
}

impl Backend {
    /// The backend's name in reports and the manifest.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
        }
    }

    /// Resolve the `--backend` argument (`auto`, `cpu` or `gpu`) to a backend this machine
    /// has, with a line that says which was chosen and why. `auto` takes a hardware GPU and
    /// never a CPU implementation of one (lavapipe); `gpu` takes any adapter, and is an input
    /// error where there is none at all.
    pub fn choose(requested: &str) -> Result<(Backend, String)> {
        match requested {
            "cpu" => Ok((Backend::Cpu, "backend: cpu (requested)".into())),
            "auto" => {
                if let Some(a) = context::adapters(AdapterKind::Hardware).first() {
                    return Ok((
                        Backend::Gpu,
                        format!(
                            "backend: gpu (auto: found {})",
                            context::describe(&a.get_info())
                        ),
                    ));
                }
                let why = match context::adapters(AdapterKind::Any).first() {
                    Some(a) => format!(
                        "backend: cpu (auto: the only GPU adapter, {}, is a CPU implementation; \
                         --backend gpu uses it anyway)",
                        context::describe(&a.get_info())
                    ),
                    None => "backend: cpu (auto: no GPU adapter found)".into(),
                };
                Ok((Backend::Cpu, why))
            }
            "gpu" => match context::adapters(AdapterKind::Any).first() {
                Some(a) => Ok((
                    Backend::Gpu,
                    format!(
                        "backend: gpu (requested: {})",
                        context::describe(&a.get_info())
                    ),
                )),
                None => Err(Error::input(
                    "--backend gpu: no GPU adapter found (no Vulkan, Metal or DX12 driver answered; \
                     on Debian, mesa-vulkan-drivers provides lavapipe); fix: use --backend cpu or auto",
                )),
            },
            other => Err(Error::input(format!(
                "--backend {other}: unknown backend; fix: use auto, cpu or gpu"
            ))),
        }
    }
}
