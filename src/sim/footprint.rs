//! The memory a scene will take, estimated from the scene alone before anything is allocated,
//! and the guard that refuses a scene past the available memory or `--max-memory`.
use crate::backend::Backend;
use crate::liquid::LatticeBlock;
use crate::liquid::particles::lattice_dims;
use crate::scene::Scene;
use crate::{Error, Result};
use std::path::Path;

/// The most liquid particles a run may have (ids are 32-bit, and GPU buffers index them).
pub const MAX_PARTICLES: f64 = (1u64 << 28) as f64;

/// Resident memory of a run with no particles: the program, its threads and buffers, bytes.
const BASE_BYTES: f64 = 7.0 * 1048576.0;

/// Host bytes per liquid particle on the CPU backend besides its neighbour list: the particle
/// arrays (positions, previous positions, velocities, ids, phases, kernel sums), the step's
/// scratch (displacements, whose array the viscosity's velocity changes share, pressures), the
/// grid's cell and permutation arrays and its reordering's scratch (one vector array), and the
/// frame writer's buffer; measured by the peak resident memory of the first frame of the dam
/// break at three spacings.
const CPU_BYTES_PER_PARTICLE: f64 = 180.0;

/// Host bytes per liquid particle on the GPU backend: the particle arrays kept on the host and
/// the frame writer's buffer.
const GPU_HOST_BYTES_PER_PARTICLE: f64 = 100.0;

/// GPU bytes per liquid particle: 80 B of particle arrays and about 8 B of grid cells (see
/// docs/src/guide/gpu-backend.md).
const GPU_DEVICE_BYTES_PER_PARTICLE: f64 = 88.0;

/// What a scene needs, estimated before anything is allocated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    /// The most liquid particles the run holds: those the blocks fill, and those the
    /// emitters add by the end of the run (outlets aside).
    pub particles: f64,
    /// Host memory of the CPU backend, bytes.
    pub cpu_bytes: f64,
    /// Host memory of the GPU backend, bytes.
    pub gpu_host_bytes: f64,
    /// GPU memory of the GPU backend, bytes.
    pub gpu_device_bytes: f64,
}

/// At most the particles the emitters of a validated scene add by the end of its run.
pub fn emitted(scene: &Scene) -> f64 {
    let Some(first) = scene.liquid.first() else {
        return 0.0;
    };
    if scene.emitter.is_empty() {
        return 0.0;
    }
    // Estimated from the nozzles' areas (within a layer of the count), so that a scene that
    // would emit too many is refused before any layer is made.
    let end = super::source_setup::end_time(scene, scene.time.frames);
    scene
        .emitter
        .iter()
        .map(|e| e.particles_bound(first.spacing, end))
        .sum()
}

impl Footprint {
    /// Estimate the footprint of a validated scene from its blocks' lattices (no particle is
    /// made).
    pub fn of(scene: &Scene) -> Footprint {
        let mut particles = 0.0;
        let mut ratio = 2.0;
        if let Some(first) = scene.liquid.first() {
            ratio = first.kernel_radius;
            for b in &scene.liquid {
                // A shaped block is counted by its bounds: an upper bound, as a footprint is.
                let (min, max) = b.bounds();
                let block = LatticeBlock {
                    min,
                    max,
                    velocity: b.velocity,
                };
                let (n, _) = lattice_dims(&block, first.spacing);
                particles += n.iter().map(|&k| k as f64).product::<f64>();
            }
        }
        // The emitters' particles by the end of the run: the most the run holds at once.
        particles += emitted(scene);
        // The neighbour lists are half lists (a slot keeps its later neighbours): a stride of
        // at least 32 slots, widened to hold half the neighbours within the kernel radius (a
        // ball of `ratio` spacings) and a third more.
        let ball = 4.0 / 3.0 * std::f64::consts::PI * ratio.powi(3);
        let stride = (1.3 * ball / 2.0 / 16.0).ceil().max(2.0) * 16.0;
        // Per slot: the reserved indices and distances, the count, the two kernel sums and
        // their double-precision accumulators.
        let neighbours = 8.0 * stride + 12.0 + 16.0;
        // A checkpoint at the end of a frame holds, at once, the lists packed (a neighbour
        // each, about half a ball's worth, and a count), three position-sized copies of 12
        // bytes and the file's bytes (those lists again and 56 bytes of particle arrays).
        let checkpoint = 4.0 * ball + 8.0 + 36.0 + 56.0;
        Footprint {
            particles,
            cpu_bytes: BASE_BYTES + particles * (CPU_BYTES_PER_PARTICLE + neighbours + checkpoint),
            gpu_host_bytes: BASE_BYTES + particles * GPU_HOST_BYTES_PER_PARTICLE,
            gpu_device_bytes: particles * GPU_DEVICE_BYTES_PER_PARTICLE,
        }
    }

    /// The memory a run on `backend` takes, bytes: on the GPU backend host and GPU memory
    /// together (a software GPU such as lavapipe takes both from the host).
    pub fn bytes(&self, backend: Backend) -> f64 {
        match backend {
            Backend::Cpu => self.cpu_bytes,
            Backend::Gpu => self.gpu_host_bytes + self.gpu_device_bytes,
        }
    }

    /// Refuse the scene in `file` when it needs more particles than [`MAX_PARTICLES`], or more
    /// memory on `backend` than `max_memory` (bytes) or than this machine has available.
    pub fn guard(&self, file: &Path, backend: Backend, max_memory: Option<u64>) -> Result<()> {
        let fix = "raise liquid[0].spacing (memory falls with its cube) or shrink the liquid \
                   blocks";
        if self.particles > MAX_PARTICLES {
            return Err(Error::input(format!(
                "{}: liquid: the blocks hold {:.3e} particles, more than {MAX_PARTICLES:.3e}; \
                 fix: {fix}",
                file.display(),
                self.particles
            )));
        }
        let need = self.bytes(backend);
        let limit = match (max_memory, mem_available()) {
            (Some(m), _) => Some((m as f64, "--max-memory")),
            (None, Some(a)) => Some((a as f64, "the memory available (MemAvailable)")),
            (None, None) => None,
        };
        if let Some((limit, what)) = limit
            && need > limit
        {
            return Err(Error::input(format!(
                "{}: liquid: {:.0} particles need about {} on the {} backend, more than {what} \
                 ({}); fix: {fix}{}",
                file.display(),
                self.particles,
                mib(need),
                backend.name(),
                mib(limit),
                if max_memory.is_some() {
                    ", or raise --max-memory"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }
}

/// Bytes as MiB with one decimal, e.g. `12.5 MiB`.
pub fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / 1048576.0)
}

/// A `kB` field of a `/proc` file (`MemAvailable:` of /proc/meminfo, `VmHWM:` of
/// /proc/self/status), in bytes.
pub fn proc_kb(file: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// The memory available to new programs (Linux's MemAvailable), bytes; `None` elsewhere.
pub fn mem_available() -> Option<u64> {
    proc_kb("/proc/meminfo", "MemAvailable:")
}

/// The peak resident memory of this process so far (Linux's VmHWM), bytes; `None` elsewhere.
pub fn peak_resident() -> Option<u64> {
    proc_kb("/proc/self/status", "VmHWM:")
}

/// Parse a memory size: bytes, or a number with K, M, G or T (powers of 1024, an optional
/// trailing `iB` or `B`), e.g. `512M`, `4GiB`, `1.5G`.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (num, scale) = match t.chars().last() {
        Some(c @ ('K' | 'k' | 'M' | 'm' | 'G' | 'g' | 'T' | 't')) => (
            &t[..t.len() - 1],
            match c.to_ascii_uppercase() {
                'K' => 1u64 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                _ => 1 << 40,
            },
        ),
        _ => (t, 1),
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * (scale as f64) < 1.8e19 => {
            Ok((v * scale as f64) as u64)
        }
        _ => Err(format!(
            "'{text}' is not a memory size; give bytes or a number with K, M, G or T, e.g. 4G"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1G").is_err());
    }

    #[test]
    fn the_estimate_counts_the_lattice_and_grows_with_it() {
        let text = "[[liquid]]\nmin = [0, 0, 0]\nmax = [0.2, 0.3, 0.2]\nspacing = 0.01\n";
        let s: Scene = toml::from_str(text).unwrap();
        let f = Footprint::of(&s);
        assert_eq!(f.particles, 12000.0);
        let fine: Scene = toml::from_str(&text.replace("0.01", "0.005")).unwrap();
        let g = Footprint::of(&fine);
        assert_eq!(g.particles, 96000.0);
        assert!(g.cpu_bytes > f.cpu_bytes && g.gpu_device_bytes == 8.0 * f.gpu_device_bytes);
        let huge: Scene = toml::from_str(&text.replace("0.01", "1e-5")).unwrap();
        let e = Footprint::of(&huge)
            .guard(Path::new("x.toml"), Backend::Cpu, None)
            .unwrap_err();
        assert!(e.to_string().contains("particles"), "{e}");
        let e = f
            .guard(Path::new("x.toml"), Backend::Cpu, Some(1 << 20))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("12000 particles") && e.contains("1.0 MiB"),
            "{e}"
        );
    }
}
