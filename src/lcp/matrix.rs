//! A small row-major dense matrix with the LU and Cholesky factorisations the solvers need.

/// A dense row-major matrix of f64 (the default is the empty 0 x 0 matrix).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DenseMatrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl DenseMatrix {
    /// An all-zero matrix of the given shape.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }

    /// Make this an all-zero matrix of the given shape, keeping the buffer.
    pub fn reset(&mut self, rows: usize, cols: usize) {
        self.rows = rows;
        self.cols = cols;
        self.data.clear();
        self.data.resize(rows * cols, 0.0);
    }

    /// Make this the matrix of row-major `data`, keeping the buffer; panics if the length is
    /// not rows * cols.
    pub fn set_row_major(&mut self, rows: usize, cols: usize, data: &[f64]) {
        assert_eq!(
            data.len(),
            rows * cols,
            "row-major data of the wrong length"
        );
        self.rows = rows;
        self.cols = cols;
        self.data.clear();
        self.data.extend_from_slice(data);
    }

    /// The identity matrix of order n.
    pub fn identity(n: usize) -> Self {
        let mut m = Self::zeros(n, n);
        for i in 0..n {
            m[(i, i)] = 1.0;
        }
        m
    }

    /// A matrix from row-major data; panics if the length is not rows * cols.
    pub fn from_row_major(rows: usize, cols: usize, data: Vec<f64>) -> Self {
        assert_eq!(
            data.len(),
            rows * cols,
            "row-major data of the wrong length"
        );
        Self { rows, cols, data }
    }

    /// A matrix from a list of equally long rows; panics on ragged input.
    pub fn from_rows(rows: &[Vec<f64>]) -> Self {
        let cols = rows.first().map_or(0, Vec::len);
        let mut data = Vec::with_capacity(rows.len() * cols);
        for r in rows {
            assert_eq!(r.len(), cols, "ragged rows");
            data.extend_from_slice(r);
        }
        Self {
            rows: rows.len(),
            cols,
            data,
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row i as a slice.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Row i as a mutable slice.
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// All entries, row after row.
    pub(crate) fn data_mut(&mut self) -> &mut [f64] {
        &mut self.data
    }

    /// The rows as vectors (for serialisation).
    pub fn to_rows(&self) -> Vec<Vec<f64>> {
        (0..self.rows).map(|i| self.row(i).to_vec()).collect()
    }

    /// Matrix-vector product `self * x`.
    pub fn mul_vec(&self, x: &[f64]) -> Vec<f64> {
        let mut y = Vec::new();
        self.mul_vec_into(x, &mut y);
        y
    }

    /// [`DenseMatrix::mul_vec`] into `y` (a buffer kept by the caller).
    pub fn mul_vec_into(&self, x: &[f64], y: &mut Vec<f64>) {
        assert_eq!(x.len(), self.cols);
        y.clear();
        y.extend((0..self.rows).map(|i| dot(self.row(i), x)));
    }

    /// The largest absolute row sum (infinity norm).
    pub fn norm_inf(&self) -> f64 {
        (0..self.rows)
            .map(|i| {
                // Four partial sums, as in `dot`.
                let row = self.row(i).chunks_exact(4);
                let tail: f64 = row.remainder().iter().map(|v| v.abs()).sum();
                let mut acc = [0.0f64; 4];
                for c in row {
                    for k in 0..4 {
                        acc[k] += c[k].abs();
                    }
                }
                (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
            })
            .fold(0.0, f64::max)
    }

    /// The largest absolute entry.
    pub fn max_abs(&self) -> f64 {
        self.data.iter().fold(0.0, |a, v| a.max(v.abs()))
    }

    /// The transpose.
    pub fn transpose(&self) -> Self {
        let mut t = Self::zeros(self.cols, self.rows);
        for i in 0..self.rows {
            for j in 0..self.cols {
                t[(j, i)] = self[(i, j)];
            }
        }
        t
    }

    /// True if the matrix is square and equals its transpose exactly.
    pub fn is_exactly_symmetric(&self) -> bool {
        let n = self.rows;
        n == self.cols
            && (0..n).all(|i| {
                let row = &self.data[i * n..i * n + i];
                let col = self.data[i..].iter().step_by(n);
                row.iter().zip(col).all(|(a, b)| a == b)
            })
    }

    /// True if the matrix is square and equals its transpose to a relative tolerance.
    pub fn is_symmetric(&self, rel_tol: f64) -> bool {
        if self.rows != self.cols {
            return false;
        }
        let tol = rel_tol * self.max_abs().max(f64::MIN_POSITIVE);
        (0..self.rows).all(|i| (0..i).all(|j| (self[(i, j)] - self[(j, i)]).abs() <= tol))
    }
}

impl std::ops::Index<(usize, usize)> for DenseMatrix {
    type Output = f64;
    fn index(&self, (i, j): (usize, usize)) -> &f64 {
        &self.data[i * self.cols + j]
    }
}

impl std::ops::IndexMut<(usize, usize)> for DenseMatrix {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 {
        &mut self.data[i * self.cols + j]
    }
}

/// Dot product of two equally long slices (over the shorter, if they differ). Four partial
/// sums run side by side, so that long products are not held up by one chain of additions.
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (a[..n].chunks_exact(4), b[..n].chunks_exact(4));
    let tail: f64 = a
        .remainder()
        .iter()
        .zip(b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    let mut acc = [0.0f64; 4];
    for (x, y) in a.zip(b) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// Dot product of two 6-vectors (a body's Jacobian row and velocity), summed in pairs.
#[inline]
pub(crate) fn dot6(a: &[f64; 6], b: &[f64; 6]) -> f64 {
    (a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3]) + (a[4] * b[4] + a[5] * b[5])
}

/// The six numbers of `x` from `at` (a body's block of a velocity vector).
#[inline]
pub(crate) fn six(x: &[f64], at: usize) -> &[f64; 6] {
    x[at..at + 6].try_into().expect("six numbers")
}

/// An LU factorisation with partial pivoting of a square matrix (the default factors the
/// empty matrix, to [`Lu::refactor`] later).
#[derive(Debug, Clone, Default)]
pub struct Lu {
    lu: DenseMatrix,
    perm: Vec<usize>,
}

impl Lu {
    /// Factor `a`; None if a pivot falls below `tol` times the largest entry.
    pub fn new(a: &DenseMatrix, rel_tol: f64) -> Option<Self> {
        let mut lu = Self::default();
        lu.refactor(a, rel_tol).then_some(lu)
    }

    /// Factor `a` as [`Lu::new`] does, into this factorisation's buffers; false (the
    /// factorisation is then unusable) if a pivot falls below `tol` times the largest entry.
    pub fn refactor(&mut self, a: &DenseMatrix, rel_tol: f64) -> bool {
        let n = a.rows();
        assert_eq!(n, a.cols());
        let (lu, perm) = (&mut self.lu, &mut self.perm);
        lu.set_row_major(n, n, &a.data);
        perm.clear();
        perm.extend(0..n);
        let tol = rel_tol * a.max_abs().max(f64::MIN_POSITIVE);
        for k in 0..n {
            let p = (k..n)
                .max_by(|&x, &y| lu[(x, k)].abs().total_cmp(&lu[(y, k)].abs()))
                .unwrap_or(k);
            let piv = lu[(p, k)];
            if piv.abs() <= tol || !piv.is_finite() {
                return false;
            }
            if p != k {
                for j in 0..n {
                    lu.data.swap(p * n + j, k * n + j);
                }
                perm.swap(p, k);
            }
            for i in k + 1..n {
                let f = lu[(i, k)] / piv;
                lu[(i, k)] = f;
                if f != 0.0 {
                    for j in k + 1..n {
                        let v = lu[(k, j)];
                        lu[(i, j)] -= f * v;
                    }
                }
            }
        }
        true
    }

    /// Solve `a x = b`.
    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        let mut x = Vec::new();
        self.solve_into(b, &mut x);
        x
    }

    /// [`Lu::solve`] into `x` (a buffer kept by the caller).
    pub fn solve_into(&self, b: &[f64], x: &mut Vec<f64>) {
        let n = self.perm.len();
        x.clear();
        x.extend(self.perm.iter().map(|&p| b[p]));
        for i in 0..n {
            let s = dot(&self.lu.row(i)[..i], &x[..i]);
            x[i] -= s;
        }
        for i in (0..n).rev() {
            let s = dot(&self.lu.row(i)[i + 1..], &x[i + 1..]);
            x[i] = (x[i] - s) / self.lu[(i, i)];
        }
    }
}

/// A Cholesky factorisation `a = L L^T` of a symmetric positive definite matrix.
#[derive(Debug, Clone)]
pub struct Cholesky {
    l: DenseMatrix,
}

impl Cholesky {
    /// Factor `a` (only its lower triangle is read); None if it is not numerically positive
    /// definite (a pivot at or below `rel_tol` times the largest diagonal entry).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn new(a: &DenseMatrix, rel_tol: f64) -> Option<Self> {
        let mut ch = Self::empty();
        ch.refactor(a, rel_tol).then_some(ch)
    }

    /// A factorisation of the empty matrix, to [`Cholesky::refactor`] later.
    pub fn empty() -> Self {
        Self {
            l: DenseMatrix::zeros(0, 0),
        }
    }

    /// Factor `a` as [`Cholesky::new`] does, into this factorisation's buffer; false (the
    /// factorisation is then unusable) if `a` is not numerically positive definite.
    pub fn refactor(&mut self, a: &DenseMatrix, rel_tol: f64) -> bool {
        let n = a.rows();
        let dmax = (0..n).fold(0.0f64, |m, i| m.max(a[(i, i)].abs()));
        let tol = rel_tol * dmax.max(f64::MIN_POSITIVE);
        let l = &mut self.l;
        l.reset(n, n);
        for j in 0..n {
            let d = a[(j, j)] - dot(&l.row(j)[..j], &l.row(j)[..j]);
            if d <= tol || !d.is_finite() {
                return false;
            }
            let d = d.sqrt();
            l[(j, j)] = d;
            for i in j + 1..n {
                let s = a[(i, j)] - dot(&l.row(i)[..j], &l.row(j)[..j]);
                l[(i, j)] = s / d;
            }
        }
        true
    }

    /// Solve `a x = b` in place.
    pub fn solve_in_place(&self, x: &mut [f64]) {
        let n = self.l.rows();
        for i in 0..n {
            let s = dot(&self.l.row(i)[..i], &x[..i]);
            x[i] = (x[i] - s) / self.l[(i, i)];
        }
        for i in (0..n).rev() {
            let mut s = x[i];
            for (k, xk) in x.iter().enumerate().skip(i + 1) {
                s -= self.l[(k, i)] * xk;
            }
            x[i] = s / self.l[(i, i)];
        }
    }
}

/// `y -= f x`, entry by entry (with AVX2 where the processor has it: the same bits either way,
/// since each entry is one product and one difference).
pub(crate) fn sub_scaled(y: &mut [f64], f: f64, x: &[f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2.
        unsafe { sub_scaled_avx2(y, f, x) };
        return;
    }
    sub_scaled_plain(y, f, x);
}

/// [`sub_scaled`] in plain code.
#[inline(always)]
fn sub_scaled_plain(y: &mut [f64], f: f64, x: &[f64]) {
    for (b, &a) in y.iter_mut().zip(x) {
        *b -= f * a;
    }
}

/// [`sub_scaled`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sub_scaled_avx2(y: &mut [f64], f: f64, x: &[f64]) {
    sub_scaled_plain(y, f, x);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_sums_every_product_whatever_the_length() {
        for n in 0..14 {
            let a: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
            let b: Vec<f64> = (0..n + 2).map(|i| 0.5 - 0.25 * i as f64).collect();
            let naive: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!(
                (dot(&a, &b) - naive).abs() <= 1e-13 * naive.abs().max(1.0),
                "n = {n}"
            );
            assert_eq!(dot(&a, &b), dot(&b, &a));
        }
        let (a, b) = (
            [1.0, -2.0, 3.0, 0.5, 4.0, -1.5],
            [2.0, 1.0, -1.0, 8.0, 0.25, 2.0],
        );
        assert_eq!(dot6(&a, &b), dot(&a, &b));
        assert_eq!(
            six(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 1),
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        );
    }

    #[test]
    fn lu_and_cholesky_solve_a_small_system() {
        let a = DenseMatrix::from_rows(&[
            vec![4.0, 1.0, 0.0],
            vec![1.0, 3.0, 1.0],
            vec![0.0, 1.0, 2.0],
        ]);
        let b = [1.0, 2.0, 3.0];
        let x = Lu::new(&a, 1e-14).unwrap().solve(&b);
        let mut y = b.to_vec();
        Cholesky::new(&a, 1e-14).unwrap().solve_in_place(&mut y);
        let ax = a.mul_vec(&x);
        let ay = a.mul_vec(&y);
        for i in 0..3 {
            assert!((ax[i] - b[i]).abs() < 1e-12);
            assert!((ay[i] - b[i]).abs() < 1e-12);
        }
        let s = DenseMatrix::from_rows(&[vec![1.0, 1.0], vec![1.0, 1.0]]);
        assert!(Lu::new(&s, 1e-12).is_none());
        assert!(Cholesky::new(&s, 1e-12).is_none());
    }
}
