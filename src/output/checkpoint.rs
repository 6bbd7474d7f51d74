//! `OUT/checkpoint.bin`: everything the next step of a run depends on, so that `--resume`
//! continues it exactly. A fixed little-endian header (magic, version, counts, a CRC-32 of
//! the rest, and from version 3 a CRC-32 of the header itself, so that a damaged header is
//! told apart from a checkpoint of another version) and then the arrays as raw bytes (bytemuck): the liquid particles in slot order,
//! what the next viscosity pass reuses (the CPU's neighbour lists or the GPU's grid), the
//! bodies' states, the liquid
//! contacts of the last step, the joints' error peaks since the last frame, the manifest's
//! record of penalty fallbacks, and the liquid's loads gathered since the last frame, and the emitters' and outlets' state. Written through a temporary file, `fsync` and a rename
//! ([`write_durable`]), so the file on disk is always a whole checkpoint.
use super::manifest::FallbackEntry;
use super::run_dir::RunDir;
use super::write_durable;
use crate::joints::JointError;
use crate::liquid::neighbours::PackedLists;
use crate::liquid::{Carried, Particles};
use crate::rigid::BodyState;
use crate::{Error, Result};
use bytemuck::{Pod, Zeroable};
use glam::{DQuat, DVec3, Vec3A};

/// The first bytes of every checkpoint.
pub const MAGIC: [u8; 8] = *b"SPHRCKPT";
/// The layout version this build writes (5: the emitters' and outlets' state follows the
/// loads); it reads versions 4 (without it), 3 (without the loads either: the header carries
/// its own CRC-32) and 2 (without the header's CRC-32 either). Version 1 checkpoints (whose
/// carried neighbour lists are whole) are refused as older.
pub const VERSION: u32 = 5;

/// The version before [`VERSION`], still read: without the sources' state.
const VERSION_4: u32 = 4;

/// The version before that, still read: without the loads.
const VERSION_3: u32 = 3;

/// The version before that, still read: its header lacks the header checksum.
const VERSION_2: u32 = 2;

/// Everything a run carries from one step to the next, at a step boundary.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    /// CRC-32 of the scene as run, without `time.frames` (see the manifest's `scene_hash`).
    pub scene_hash: u32,
    /// Steps taken.
    pub steps: u64,
    /// The last frame written.
    pub frame: u32,
    /// Wall-clock seconds of the run so far.
    pub wall_seconds: f64,
    /// Bytes of `rigid_states.csv`, `joint_errors.csv` and `run_metrics.csv` as of `frame`.
    pub tables: [u64; 3],
    /// The liquid particles, in slot order.
    pub particles: Particles,
    /// What the next step reuses besides the particles (the CPU's neighbour lists, the GPU's
    /// grid), for those slots.
    pub carried: Carried,
    /// The bodies' states, in body order.
    pub bodies: Vec<crate::rigid::BodyState>,
    /// (body, liquid id) of the last step's liquid contacts.
    pub touching: Vec<[u32; 2]>,
    /// The joints' largest errors over the steps since the last frame.
    pub peaks: Vec<JointError>,
    /// The steps whose contact LCP fell back to penalty so far (the manifest's list).
    pub fallbacks: Vec<FallbackEntry>,
    /// The liquid's loads on the bodies and on the walls gathered since the last frame
    /// (`sim::loads::LoadTally::save`), empty when there are none.
    pub loads: [Vec<f64>; 2],
    /// The emitters' and outlets' state (`liquid::sources::SourcesState::save`), empty
    /// without them.
    pub sources: Vec<u64>,
}

/// The fixed part at the start of a version 3 file: version 2's, then the CRC-32 of these
/// bytes with `header_crc` zero.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct Header {
    v2: HeaderV2,
    header_crc: u32,
    _pad: u32,
}

impl Header {
    /// The CRC-32 of the header with its own checksum zeroed.
    fn crc(&self) -> u32 {
        crc32fast::hash(bytemuck::bytes_of(&Header {
            header_crc: 0,
            ..*self
        }))
    }
}

/// The fixed part at the start of a version 2 file (and the start of a version 3 one).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct HeaderV2 {
    magic: [u8; 8],
    version: u32,
    scene_hash: u32,
    steps: u64,
    wall_seconds: f64,
    tables: [u64; 3],
    frame: u32,
    particles: u32,
    bodies: u32,
    touching: u32,
    peaks: u32,
    stride: u32,
    list_entries: u64,
    fallbacks_len: u64,
    payload_crc: u32,
    /// 0: nothing carried; 1: neighbour lists; 2: a grid.
    carried: u32,
}

fn v3(v: &[Vec3A]) -> Vec<[f32; 3]> {
    v.iter().map(|x| x.to_array()).collect()
}

fn body_row(s: &BodyState) -> [f64; 13] {
    let (x, q, p, l) = (s.x, s.q, s.p, s.l);
    [
        x.x, x.y, x.z, q.x, q.y, q.z, q.w, p.x, p.y, p.z, l.x, l.y, l.z,
    ]
}

/// The file's bytes.
pub fn encode(c: &Checkpoint) -> Vec<u8> {
    let p = &c.particles;
    // Per slot, then a second array: list counts and neighbours, or cells and cell starts.
    let (kind, stride, counts, packed) = match &c.carried {
        Carried::Nothing => (0, 0, &Vec::new(), &Vec::new()),
        Carried::Lists(lists) => (1, lists.stride, &lists.count, &lists.packed),
        Carried::Grid {
            cell_of,
            cell_start,
        } => (2, 0, cell_of, cell_start),
    };
    let fallbacks = serde_json::to_vec(&c.fallbacks).expect("fallback entries serialise");
    let bodies: Vec<[f64; 13]> = c.bodies.iter().map(body_row).collect();
    let peaks: Vec<[f64; 3]> = c
        .peaks
        .iter()
        .map(|e| [e.separation, e.misalignment, e.angle])
        .collect();
    let (pos, prev, vel) = (v3(&p.pos), v3(&p.prev), v3(&p.vel));
    let load_counts = c.loads.each_ref().map(|l| l.len() as u64);
    let sources_len = [c.sources.len() as u64];
    let parts: [&[u8]; 17] = [
        bytemuck::cast_slice::<[f32; 3], u8>(&pos),
        bytemuck::cast_slice(&prev),
        bytemuck::cast_slice(&vel),
        bytemuck::cast_slice(&p.id),
        bytemuck::cast_slice(&p.phase),
        bytemuck::cast_slice(&p.rho),
        bytemuck::cast_slice(counts),
        bytemuck::cast_slice(packed),
        bytemuck::cast_slice(&bodies),
        bytemuck::cast_slice(&c.touching),
        bytemuck::cast_slice(&peaks),
        &fallbacks,
        bytemuck::cast_slice(&load_counts),
        bytemuck::cast_slice(&c.loads[0]),
        bytemuck::cast_slice(&c.loads[1]),
        bytemuck::cast_slice(&sources_len),
        bytemuck::cast_slice(&c.sources),
    ];
    // One buffer of the file's size: the header's place, then the payload.
    let hl = size_of::<Header>();
    let mut out = Vec::with_capacity(hl + parts.iter().map(|b| b.len()).sum::<usize>());
    out.resize(hl, 0);
    for part in parts {
        out.extend_from_slice(part);
    }
    let v2 = HeaderV2 {
        magic: MAGIC,
        version: VERSION,
        scene_hash: c.scene_hash,
        steps: c.steps,
        wall_seconds: c.wall_seconds,
        tables: c.tables,
        frame: c.frame,
        particles: p.len() as u32,
        bodies: c.bodies.len() as u32,
        touching: c.touching.len() as u32,
        peaks: c.peaks.len() as u32,
        stride: stride as u32,
        list_entries: packed.len() as u64,
        fallbacks_len: fallbacks.len() as u64,
        payload_crc: crc32fast::hash(&out[hl..]),
        carried: kind,
    };
    let mut header = Header {
        v2,
        header_crc: 0,
        _pad: 0,
    };
    header.header_crc = header.crc();
    out[..hl].copy_from_slice(bytemuck::bytes_of(&header));
    out
}

/// Reads the payload's arrays one after another, each checked against what is left.
struct Cursor<'a> {
    bytes: &'a [u8],
}

impl Cursor<'_> {
    fn take<T: Pod>(&mut self, n: usize) -> std::result::Result<Vec<T>, String> {
        let len = n
            .checked_mul(size_of::<T>())
            .filter(|&l| l <= self.bytes.len())
            .ok_or("is damaged (it ends early)")?;
        let (head, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(bytemuck::pod_collect_to_vec(head))
    }
}

/// What the start of a checkpoint says, damage told apart from another version: the header
/// and where the payload starts, or what is wrong, in words.
fn header(bytes: &[u8]) -> std::result::Result<(HeaderV2, usize), String> {
    let (hl2, hl3) = (size_of::<HeaderV2>(), size_of::<Header>());
    if bytes.len() < hl2 || bytes[..8] != MAGIC {
        return Err("is not a sphrigid checkpoint".into());
    }
    let v2: HeaderV2 = bytemuck::pod_read_unaligned(&bytes[..hl2]);
    let v3 = (bytes.len() >= hl3).then(|| bytemuck::pod_read_unaligned::<Header>(&bytes[..hl3]));
    let v3_whole = v3.filter(|h| h.crc() == h.header_crc);
    match (v2.version, v3_whole) {
        (VERSION | VERSION_4 | VERSION_3, Some(h)) => Ok((h.v2, hl3)),
        (VERSION_2, _) => Ok((v2, hl2)),
        (1, _) => Err(
            "is a version 1 checkpoint, from an older sphrigid that this build cannot continue"
                .into(),
        ),
        // A header whose own checksum holds, of a version this build does not know.
        (v, Some(_)) => Err(format!(
            "is a checkpoint of version {v}, from another sphrigid (this build reads versions {VERSION_2} to {VERSION})"
        )),
        (_, None) => Err("is damaged (header checksum mismatch)".into()),
    }
}

/// Parse a checkpoint's bytes; what is wrong with them, in words (a phrase whose subject is
/// the file: "is damaged (checksum mismatch)").
pub fn decode(bytes: &[u8]) -> std::result::Result<Checkpoint, String> {
    let (h, hl) = header(bytes)?;
    let payload = &bytes[hl..];
    if crc32fast::hash(payload) != h.payload_crc {
        return Err("is damaged (checksum mismatch)".into());
    }
    let mut c = Cursor { bytes: payload };
    let n = h.particles as usize;
    let vecs = |v: Vec<[f32; 3]>| v.into_iter().map(Vec3A::from_array).collect();
    let particles = Particles {
        pos: vecs(c.take(n)?),
        prev: vecs(c.take(n)?),
        vel: vecs(c.take(n)?),
        id: c.take(n)?,
        phase: c.take(n)?,
        rho: c.take(n)?,
    };
    let counts: Vec<u32> = c.take(if h.carried != 0 { n } else { 0 })?;
    let packed: Vec<u32> = c.take(h.list_entries as usize)?;
    let carried = match h.carried {
        0 => Carried::Nothing,
        1 => {
            let lists = PackedLists {
                stride: h.stride as usize,
                count: counts,
                packed,
            };
            // Checked here, so that a damaged file is named before anything is restored.
            if !lists.fits() {
                return Err("is damaged (its neighbour lists do not fit together)".into());
            }
            Carried::Lists(lists)
        }
        2 => Carried::Grid {
            cell_of: counts,
            cell_start: packed,
        },
        k => return Err(format!("is damaged (an unknown kind of step state, {k})")),
    };
    let bodies = c
        .take::<[f64; 13]>(h.bodies as usize)?
        .into_iter()
        .map(|r| BodyState {
            x: DVec3::new(r[0], r[1], r[2]),
            q: DQuat::from_xyzw(r[3], r[4], r[5], r[6]),
            p: DVec3::new(r[7], r[8], r[9]),
            l: DVec3::new(r[10], r[11], r[12]),
        })
        .collect();
    let touching = c.take::<[u32; 2]>(h.touching as usize)?;
    let peaks = c
        .take::<[f64; 3]>(h.peaks as usize)?
        .into_iter()
        .map(|[separation, misalignment, angle]| JointError {
            separation,
            misalignment,
            angle,
        })
        .collect();
    let fallbacks: Vec<u8> = c.take(h.fallbacks_len as usize)?;
    let fallbacks = serde_json::from_slice(&fallbacks)
        .map_err(|e| format!("is damaged (its fallback list does not parse: {e})"))?;
    let loads = if h.version >= VERSION_4 {
        let n = c.take::<u64>(2)?;
        let body = c.take::<f64>(n[0] as usize)?;
        [body, c.take::<f64>(n[1] as usize)?]
    } else {
        [Vec::new(), Vec::new()]
    };
    let sources = if h.version >= VERSION {
        let n = c.take::<u64>(1)?;
        c.take::<u64>(n[0] as usize)?
    } else {
        Vec::new()
    };
    if !c.bytes.is_empty() {
        return Err("is damaged (bytes past its end)".into());
    }
    Ok(Checkpoint {
        scene_hash: h.scene_hash,
        steps: h.steps,
        frame: h.frame,
        wall_seconds: h.wall_seconds,
        tables: h.tables,
        particles,
        carried,
        bodies,
        touching,
        peaks,
        fallbacks,
        loads,
        sources,
    })
}

/// The run's checkpoint, `None` when there is none; a file that is not a whole checkpoint
/// this build reads is an input error naming it and saying whether it is damaged or of
/// another version.
pub fn read(run: &RunDir) -> Result<Option<Checkpoint>> {
    let path = run.checkpoint();
    let mut missing = false;
    let read = crate::bounded_read::read_bytes_with(&path, &crate::bounded_read::CHECKPOINT, |e| {
        missing = e.kind() == std::io::ErrorKind::NotFound;
        Error::io(&path, e)
    });
    let bytes = match read {
        Ok(b) => b,
        Err(_) if missing => return Ok(None),
        Err(e) => return Err(e),
    };
    decode(&bytes).map(Some).map_err(|what| {
        Error::input(format!(
            "{} {what}; the frames in {} are not affected, but the run cannot be continued from it; fix: start the run over with --overwrite",
            path.display(),
            run.path().display()
        ))
    })
}

/// Testing knob: checkpoints of frames after this one fail as on a full disk (`ENOSPC`), so
/// that the tests can check what a run does then without filling a disk.
pub const DISK_FULL_AFTER_VAR: &str = "SPHRIGID_TEST_DISK_FULL_AFTER_FRAME";

/// Write the checkpoint into the run directory, durably: nothing of it is visible before all
/// of it is on disk (see [`write_durable`]).
pub fn write(run: &RunDir, c: &Checkpoint) -> Result<()> {
    let full_after = std::env::var(DISK_FULL_AFTER_VAR)
        .ok()
        .and_then(|v| v.parse::<u32>().ok());
    if full_after.is_some_and(|n| c.frame > n) {
        let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
        return Err(Error::io(run.checkpoint(), full));
    }
    write_durable(&run.checkpoint(), &encode(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liquid::grid::Grid;
    use crate::liquid::neighbours::NeighbourLists;

    fn sample() -> Checkpoint {
        let mut p = Particles::default();
        for i in 0..40u32 {
            let x = Vec3A::new(
                0.01 * (i % 4) as f32,
                0.01 * (i / 4 % 5) as f32,
                0.003 * i as f32,
            );
            p.push(x, Vec3A::new(0.5, -1.0, i as f32), i % 2);
            p.rho[i as usize] = 1.0 + i as f32 * 0.125;
        }
        p.prev[3] = Vec3A::new(-1.0, 2.0, 3.0);
        let mut grid = Grid::new(0.02);
        grid.build(&mut p).unwrap();
        let mut lists = NeighbourLists::default();
        lists.build(&p.pos, &grid, 0.02);
        Checkpoint {
            scene_hash: 0xdead_beef,
            steps: 1234,
            frame: 41,
            wall_seconds: 12.5,
            tables: [100, 0, 2000],
            particles: p,
            carried: Carried::Lists(lists.pack()),
            bodies: vec![BodyState {
                x: DVec3::new(0.1, 0.2, 0.3),
                q: DQuat::from_rotation_z(0.4),
                p: DVec3::new(1.0, 2.0, 3.0),
                l: DVec3::new(-1e-9, 0.0, 7.0),
            }],
            touching: vec![[0, 3], [0, 17]],
            peaks: vec![JointError {
                separation: 1e-6,
                misalignment: 2e-4,
                angle: 0.5,
            }],
            fallbacks: vec![FallbackEntry {
                step: 17,
                time: 0.25,
                rows: 9,
                outcome: "ray".into(),
                problem: "failed_lcp_17.json".into(),
            }],
            loads: [vec![0.01, 1.5, -2.0, 3e-7], vec![]],
            sources: vec![7, 3, 2, 1, 4, 1, 3, 40],
        }
    }

    #[test]
    fn checkpoints_round_trip_exactly() {
        let c = sample();
        let bytes = encode(&c);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.particles, c.particles);
        assert_eq!(back.bodies, c.bodies);
        assert_eq!(back.touching, c.touching);
        assert_eq!(back.peaks, c.peaks);
        assert_eq!(back.fallbacks, c.fallbacks);
        assert_eq!(back.loads, c.loads);
        assert_eq!(
            (back.scene_hash, back.steps, back.frame, back.tables),
            (c.scene_hash, c.steps, c.frame, c.tables)
        );
        let (Carried::Lists(a), Carried::Lists(b)) = (back.carried, c.carried) else {
            panic!("the lists came back as something else");
        };
        assert!(b.count.iter().any(|&c| c > 0));
        assert_eq!(a, b);
        // Encoding is deterministic: the same state gives the same bytes.
        assert_eq!(encode(&decode(&bytes).unwrap()), bytes);
        // A device's grid round-trips too.
        let grid = Checkpoint {
            carried: Carried::Grid {
                cell_of: (0..40).map(|i| i / 10).collect(),
                cell_start: vec![0, 10, 20, 30, 40],
            },
            ..sample()
        };
        match decode(&encode(&grid)).unwrap().carried {
            Carried::Grid {
                cell_of,
                cell_start,
            } => {
                assert_eq!(cell_of, (0..40).map(|i| i / 10).collect::<Vec<u32>>());
                assert_eq!(cell_start, [0, 10, 20, 30, 40]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn damaged_checkpoints_are_refused_with_the_reason() {
        let bytes = encode(&sample());
        let mut flipped = bytes.clone();
        let last = flipped.len() - 5;
        flipped[last] ^= 1;
        assert_eq!(
            decode(&flipped).unwrap_err(),
            "is damaged (checksum mismatch)"
        );
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode(b"PLY").unwrap_err().contains("not a sphrigid"));
        // A flipped byte anywhere in the header is damage, not another version: the version
        // field (65538 after a flip of its third byte) included.
        for at in 8..size_of::<Header>() {
            let mut h = bytes.clone();
            h[at] ^= 1 << (at % 8);
            let e = decode(&h).unwrap_err();
            assert!(e.starts_with("is damaged"), "byte {at}: {e}");
        }
        let mut v = bytes.clone();
        v[10] ^= 1;
        assert_eq!(
            decode(&v).unwrap_err(),
            "is damaged (header checksum mismatch)"
        );
        // A whole header of an unknown version is another version; version 1 is older.
        let relabel = |version: u32| {
            let mut h: Header = bytemuck::pod_read_unaligned(&bytes[..size_of::<Header>()]);
            h.v2.version = version;
            h.header_crc = h.crc();
            let mut b = bytes.clone();
            b[..size_of::<Header>()].copy_from_slice(bytemuck::bytes_of(&h));
            b
        };
        assert!(decode(&relabel(9)).unwrap_err().contains("version 9"));
        assert!(decode(&relabel(1)).unwrap_err().contains("older sphrigid"));
        // Version 4 (no sources' state), version 3 (no loads either) and version 2 files (no
        // header checksum either) are still read: a version 5 file without loads or sources,
        // less the sources' count (and the loads' two counts) at its end.
        let c = Checkpoint {
            loads: [Vec::new(), Vec::new()],
            sources: Vec::new(),
            ..sample()
        };
        let v5 = encode(&c);
        let hl = size_of::<Header>();
        let relabelled = |version: u32, payload: &[u8]| {
            let h: Header = bytemuck::pod_read_unaligned(&v5[..hl]);
            let mut h = Header {
                v2: HeaderV2 {
                    version,
                    payload_crc: crc32fast::hash(payload),
                    ..h.v2
                },
                ..h
            };
            h.header_crc = h.crc();
            let mut b = bytemuck::bytes_of(&h).to_vec();
            b.extend_from_slice(payload);
            b
        };
        let v4 = relabelled(4, &v5[hl..v5.len() - 8]);
        let back = decode(&v4).unwrap();
        assert_eq!((back.steps, &back.particles), (c.steps, &c.particles));
        assert!(back.sources.is_empty());
        let payload = &v5[hl..v5.len() - 24];
        let h: Header = bytemuck::pod_read_unaligned(&v5[..hl]);
        let old = HeaderV2 {
            payload_crc: crc32fast::hash(payload),
            ..h.v2
        };
        let mut v3 = Header {
            v2: HeaderV2 { version: 3, ..old },
            header_crc: 0,
            _pad: 0,
        };
        v3.header_crc = v3.crc();
        let mut v3 = bytemuck::bytes_of(&v3).to_vec();
        v3.extend_from_slice(payload);
        let mut v2 = bytemuck::bytes_of(&HeaderV2 { version: 2, ..old }).to_vec();
        v2.extend_from_slice(payload);
        for old in [v3, v2] {
            let back = decode(&old).unwrap();
            assert_eq!((back.steps, &back.particles), (c.steps, &c.particles));
            assert_eq!(back.loads, [Vec::<f64>::new(), Vec::new()]);
        }
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        assert!(read(&run).unwrap().is_none());
        std::fs::write(run.checkpoint(), &flipped).unwrap();
        let e = read(&run).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .contains("checkpoint.bin is damaged (checksum mismatch)")
                && e.to_string()
                    .contains("fix: start the run over with --overwrite"),
            "{e}"
        );
    }
}
