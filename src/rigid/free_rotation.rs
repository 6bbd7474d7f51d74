//! The analytic torque-free asymmetric top (Landau & Lifshitz, Mechanics, section 37): the
//! Jacobi elliptic period of the tumbling near the intermediate axis.
use glam::DVec3;

/// Complete elliptic integral of the first kind K(k) = pi / (2 AGM(1, sqrt(1 - k^2))),
/// for modulus 0 <= k < 1.
pub fn elliptic_k(k: f64) -> f64 {
    let mut a = 1.0f64;
    let mut b = (1.0 - k * k).sqrt();
    for _ in 0..64 {
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
        let (an, bn) = (0.5 * (a + b), (a * b).sqrt());
        a = an;
        b = bn;
    }
    std::f64::consts::PI / (2.0 * a)
}

/// The Jacobi elliptic solution's parameters for a free rotation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JacobiMotion {
    /// Modulus k of the elliptic functions.
    pub k: f64,
    /// Time scale: the argument of sn, cn, dn is `tau = lambda t`.
    pub lambda: f64,
    /// Full period of the body-frame angular velocity, `T = 4 K(k) / lambda`.
    pub period: f64,
    /// Time between successive sign changes of the intermediate-axis component of the angular
    /// velocity (it goes as sn(tau)): `T/2 = 2 K(k) / lambda`. This is the flip period.
    pub flip_period: f64,
}

/// Jacobi elliptic parameters of the free rotation with principal moments `moments` (any
/// order; I1 < I2 < I3 after sorting) and principal-frame angular velocity `omega` (components
/// in the same order as `moments`). Returns `None` on the separatrix (M^2 = 2 E I2) or for
/// equal moments.
///
/// With E = 1/2 sum I_i w_i^2 and M^2 = sum I_i^2 w_i^2, for M^2 > 2 E I2 (L&L 37.10):
/// `lambda^2 = (I3 - I2)(M^2 - 2 E I1) / (I1 I2 I3)`,
/// `k^2 = (I2 - I1)(2 E I3 - M^2) / ((I3 - I2)(M^2 - 2 E I1))`;
/// for M^2 < 2 E I2, exchange the indices 1 and 3. In both cases the intermediate component is
/// `w2 = const * sn(lambda t)`.
pub fn jacobi_motion(moments: DVec3, omega: DVec3) -> Option<JacobiMotion> {
    let mut pairs = [
        (moments.x, omega.x),
        (moments.y, omega.y),
        (moments.z, omega.z),
    ];
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let [(i1, w1), (i2, w2), (i3, w3)] = pairs;
    if !(i1 < i2 && i2 < i3) {
        return None;
    }
    let e2 = i1 * w1 * w1 + i2 * w2 * w2 + i3 * w3 * w3; // 2E
    let m2 = (i1 * w1).powi(2) + (i2 * w2).powi(2) + (i3 * w3).powi(2);
    let (a, c) = if m2 > e2 * i2 {
        (i1, i3)
    } else if m2 < e2 * i2 {
        (i3, i1)
    } else {
        return None;
    };
    let lambda2 = (c - i2) * (m2 - e2 * a) / (a * i2 * c);
    let k2 = (i2 - a) * (e2 * c - m2) / ((c - i2) * (m2 - e2 * a));
    if lambda2.is_nan() || lambda2 <= 0.0 || !(0.0..1.0).contains(&k2) {
        return None;
    }
    let lambda = lambda2.sqrt();
    let k = k2.sqrt();
    let kk = elliptic_k(k);
    Some(JacobiMotion {
        k,
        lambda,
        period: 4.0 * kk / lambda,
        flip_period: 2.0 * kk / lambda,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elliptic_k_known_values() {
        assert!((elliptic_k(0.0) - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        // K(1/sqrt 2) = Gamma(1/4)^2 / (4 sqrt(pi)) = 1.854074677301372
        assert!((elliptic_k(0.5f64.sqrt()) - 1.854_074_677_301_372).abs() < 1e-14);
        // K(0.99) = 3.356600523361192 (Abramowitz & Stegun, m = 0.9801)
        assert!((elliptic_k(0.99) - 3.356_600_523_361_192).abs() < 1e-12);
    }

    #[test]
    fn small_wobble_about_major_axis_has_the_linear_frequency() {
        // Near the major axis k -> 0 and T -> 2 pi / (W sqrt((I3-I1)(I3-I2)/(I1 I2))).
        let i = DVec3::new(1.0, 2.0, 3.0);
        let w = 2.0;
        let j = jacobi_motion(i, DVec3::new(1e-6, 1e-6, w)).unwrap();
        let lin = 2.0 * std::f64::consts::PI / (w * (2.0f64 * 1.0 / 2.0).sqrt());
        assert!(j.k < 1e-5);
        assert!((j.period / lin - 1.0).abs() < 1e-9, "{} vs {lin}", j.period);
    }
}
