//! The liquid's sources and sinks in a run: at the end of every step, the particles in an
//! outlet leave, each emitter's held layers are set back on their course, and the layers due
//! are emitted, each particle with an id no particle has held. What they have done is counted
//! and kept with a checkpoint.
use super::emitter::{Emitter, EmitterState, HeldLayer};
use super::particles::Particles;
use glam::Vec3A;
use rayon::prelude::*;

/// A box whose particles leave the run, m.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outlet {
    /// Lower corner, m.
    pub min: Vec3A,
    /// Upper corner, m.
    pub max: Vec3A,
}

impl Outlet {
    /// Whether `x` lies in the box.
    #[inline]
    pub fn holds(&self, x: Vec3A) -> bool {
        x.cmpge(self.min).all() && x.cmple(self.max).all()
    }
}

/// What the sources carry from step to step (a checkpoint keeps it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourcesState {
    /// The id the next emitted particle gets.
    pub next_id: u32,
    /// Particles emitted so far.
    pub emitted: u64,
    /// Particles removed by the outlets so far.
    pub removed: u64,
    /// Per emitter, where it stands.
    pub emitters: Vec<EmitterState>,
}

impl SourcesState {
    /// The state as numbers for a checkpoint: `next_id, emitted, removed`, the emitters'
    /// count, and per emitter its layers, its held layers' count and each held layer's index
    /// and first id.
    pub fn save(&self) -> Vec<u64> {
        let mut out = vec![
            u64::from(self.next_id),
            self.emitted,
            self.removed,
            self.emitters.len() as u64,
        ];
        for e in &self.emitters {
            out.extend([e.layers, e.held.len() as u64]);
            out.extend(e.held.iter().flat_map(|h| [h.layer, u64::from(h.first_id)]));
        }
        out
    }

    /// Put back the state [`SourcesState::save`] gave, for a run with as many emitters
    /// (their held lists keep the memory set aside); `None` when the numbers do not fit it.
    pub fn restore(&mut self, saved: &[u64]) -> Option<()> {
        let mut it = saved.iter().copied();
        let mut next = || it.next();
        let next_id = u32::try_from(next()?).ok()?;
        let (emitted, removed, count) = (next()?, next()?, next()?);
        if count != self.emitters.len() as u64 {
            return None;
        }
        for e in &mut self.emitters {
            e.layers = next()?;
            let held = next()?;
            e.held.clear();
            for _ in 0..held {
                let layer = next()?;
                let first_id = u32::try_from(next()?).ok()?;
                e.held.push(HeldLayer { layer, first_id });
            }
        }
        if next().is_some() {
            return None;
        }
        (self.next_id, self.emitted, self.removed) = (next_id, emitted, removed);
        Some(())
    }
}

/// The emitters and outlets of a run, with their state.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The emitters.
    pub emitters: Vec<Emitter>,
    /// The outlets.
    pub outlets: Vec<Outlet>,
    /// Where they stand.
    pub state: SourcesState,
    /// The held layers of every emitter, by first id: (first id, emitter, layer) (kept to
    /// reuse its memory).
    held: Vec<(u32, u32, u64)>,
}

impl Sources {
    /// The sources of a run whose particles at time 0 have ids below `next_id`.
    pub fn new(emitters: Vec<Emitter>, outlets: Vec<Outlet>, next_id: u32) -> Sources {
        let held_layers: usize = emitters
            .iter()
            .map(|e| (e.hold / e.interval).ceil() as usize + 2)
            .sum();
        let state = SourcesState {
            next_id,
            emitted: 0,
            removed: 0,
            emitters: emitters
                .iter()
                .map(|e| EmitterState {
                    layers: 0,
                    held: Vec::with_capacity((e.hold / e.interval).ceil() as usize + 2),
                })
                .collect(),
        };
        Sources {
            emitters,
            outlets,
            state,
            held: Vec::with_capacity(held_layers),
        }
    }

    /// Whether there is nothing to do.
    pub fn is_empty(&self) -> bool {
        self.emitters.is_empty() && self.outlets.is_empty()
    }

    /// The most particles the emitters add by time `t`.
    pub fn emitted_by(&self, t: f64) -> u64 {
        self.emitters.iter().map(|e| e.particles_by(t)).sum()
    }

    /// Whether a step ending at time `t` has nothing to do without looking at the particles:
    /// no outlet, no held layer and no layer due (then the backend is not asked for them; on
    /// a device that saves a download and an upload).
    pub fn idle(&self, t: f64) -> bool {
        self.outlets.is_empty()
            && self
                .emitters
                .iter()
                .zip(&self.state.emitters)
                .all(|(e, s)| s.held.is_empty() && e.layers_due(t) == s.layers)
    }

    fn any_in_outlet(&self, p: &Particles) -> bool {
        let outlets = &self.outlets;
        p.pos
            .par_iter()
            .with_min_len(4096)
            .any(|&x| outlets.iter().any(|o| o.holds(x)))
    }

    /// The end of a step at time `t`: remove the particles in the outlets, put the held
    /// layers back on their course at the set velocity, and emit the layers due; whether a
    /// particle was removed or emitted.
    pub fn apply(&mut self, p: &mut Particles, t: f64) -> bool {
        let (removed, emitted) = (self.state.removed, self.state.emitted);
        if !self.outlets.is_empty() && self.any_in_outlet(p) {
            let outlets = &self.outlets;
            let before = p.len();
            p.remove_where(|x| outlets.iter().any(|o| o.holds(x)));
            self.state.removed += (before - p.len()) as u64;
        }
        self.hold(p, t);
        self.emit(p, t);
        (self.state.removed, self.state.emitted) != (removed, emitted)
    }

    /// The held layers' particles back on their course: where the nozzle has carried them at
    /// the set speed since they were due, at the set velocity; layers held long enough let go.
    fn hold(&mut self, p: &mut Particles, t: f64) {
        self.held.clear();
        for (i, (e, s)) in self
            .emitters
            .iter()
            .zip(&mut self.state.emitters)
            .enumerate()
        {
            s.held.retain(|h| t - e.due(h.layer) < e.hold);
            self.held
                .extend(s.held.iter().map(|h| (h.first_id, i as u32, h.layer)));
        }
        if self.held.is_empty() {
            return;
        }
        self.held.sort_unstable();
        let (held, emitters) = (&self.held, &self.emitters);
        let lowest = held[0].0;
        p.pos
            .par_iter_mut()
            .zip(p.vel.par_iter_mut())
            .zip(p.id.par_iter())
            .with_min_len(4096)
            .filter(|(_, id)| **id >= lowest)
            .for_each(|((x, v), &id)| {
                let k = held.partition_point(|h| h.0 <= id);
                let (first, e, layer) = held[k - 1];
                let e = &emitters[e as usize];
                let j = (id - first) as usize;
                if j < e.sites.len() {
                    (*x, *v) = e.site_at(layer, j, t);
                }
            });
    }

    /// Emit every layer due by `t`, each particle with the next id, placed where the nozzle
    /// has carried it since the layer was due.
    fn emit(&mut self, p: &mut Particles, t: f64) {
        for (e, s) in self.emitters.iter().zip(&mut self.state.emitters) {
            let due = e.layers_due(t);
            while s.layers < due {
                let k = s.layers;
                let first_id = self.state.next_id;
                for j in 0..e.sites.len() {
                    let (x, v) = e.site_at(k, j, t);
                    p.push_with_id(self.state.next_id, x, v, e.phase);
                    self.state.next_id += 1;
                }
                self.state.emitted += e.sites.len() as u64;
                if t - e.due(k) < e.hold {
                    s.held.push(HeldLayer { layer: k, first_id });
                }
                s.layers += 1;
            }
        }
    }
}
