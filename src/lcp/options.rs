//! Solver settings shared by all methods.

/// How Lemke breaks ties in the minimum-ratio test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TieBreak {
    /// Lexicographic minimum over the rows of `B^-1 [q I]`: never cycles.
    #[default]
    Lexicographic,
    /// The lowest tied row: can cycle or stop falsely on degenerate problems (for tests).
    FirstIndex,
}

/// Settings of a solve.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Most single-index pivots (Lemke, Dantzig); None: a default from the problem size.
    pub pivot_limit: Option<usize>,
    /// Tie-break rule of Lemke's ratio test.
    pub tie_break: TieBreak,
    /// Relative tolerance for pivots and ties (scaled by the data's norms).
    pub tolerance: f64,
    /// Most block-pivoting steps (each a change of active set).
    pub max_block_pivot_steps: usize,
    /// Most fixed-point rounds for friction bounds that follow a normal row.
    pub max_friction_rounds: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            pivot_limit: None,
            tie_break: TieBreak::Lexicographic,
            tolerance: 1e-12,
            max_block_pivot_steps: 100,
            max_friction_rounds: 200,
        }
    }
}

impl Options {
    /// The pivot limit for a problem of n rows.
    pub fn pivot_limit_for(&self, n: usize) -> usize {
        self.pivot_limit.unwrap_or(50 * n + 1000)
    }
}
