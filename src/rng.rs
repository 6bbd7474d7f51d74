//! The project's one deterministic pseudo-random generator (xorshift64): sample problems and
//! tests draw from it, so a seed gives the same numbers on every machine.

/// A xorshift64 generator (Marsaglia 2003, shifts 13, 7, 17).
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator for `seed`: the seed is spread by the golden-ratio multiplier and made odd,
    /// so that neighbouring seeds give unrelated streams and no seed gives the stuck state 0.
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A generator started at exactly `state` (which must not be 0).
    pub fn from_state(state: u64) -> XorShift {
        assert!(state != 0, "xorshift's state 0 is a fixed point");
        XorShift(state)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1), on a grid of 2^-53.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [-1, 1), on a grid of 2^-52.
    pub fn sym(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }

    /// Uniform in [a, b).
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit()
    }
}

#[cfg(test)]
mod tests {
    use super::XorShift;

    #[test]
    fn draws_stay_in_range_and_cover_it() {
        let mut r = XorShift::new(42);
        let (mut lo, mut hi, mut sum) = (1.0f64, -1.0f64, 0.0);
        let n = 100_000;
        for _ in 0..n {
            let s = r.sym();
            assert!((-1.0..1.0).contains(&s));
            lo = lo.min(s);
            hi = hi.max(s);
            sum += s;
        }
        // The mean of n uniform draws on [-1, 1) has standard deviation 1/sqrt(3n) = 0.0018.
        assert!((sum / n as f64).abs() < 0.01, "mean {}", sum / n as f64);
        assert!(lo < -0.999 && hi > 0.999, "[{lo}, {hi}]");
    }

    #[test]
    fn equal_seeds_repeat_and_neighbouring_seeds_differ() {
        let a: Vec<u64> = (0..8)
            .scan(XorShift::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..8)
            .scan(XorShift::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let c: Vec<u64> = (0..8)
            .scan(XorShift::new(8), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert!(a.iter().zip(&c).all(|(x, y)| x != y));
    }
}
