//! The islands of a contact problem: union-find over rows (or bodies), and the connected
//! components it leaves, listed in place so that each is solved on its own.

/// The root of `b` in the union-find `parent` (paths halved on the way).
pub(super) fn root(parent: &mut [usize], mut b: usize) -> usize {
    while parent[b] != b {
        parent[b] = parent[parent[b]];
        b = parent[b];
    }
    b
}

/// Join the sets of `a` and `b` in the union-find `parent` (the smaller root wins).
fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (root(parent, a), root(parent, b));
    parent[ra.max(rb)] = ra.min(rb);
}

/// Connected components of `n` items, built on borrowed buffers that keep their capacity:
/// after [`Islands::finish`], component c is `rows[start[c]..start[c + 1]]`, items in
/// increasing order within it, components in the order of their first item.
pub(super) struct Islands<'a> {
    /// The union-find.
    pub(super) parent: &'a mut Vec<usize>,
    /// Each item's component.
    pub(super) label: &'a mut Vec<usize>,
    /// Where each component starts in `rows` (one more entry than components).
    pub(super) start: &'a mut Vec<usize>,
    /// The items, component by component.
    pub(super) rows: &'a mut Vec<usize>,
}

impl Islands<'_> {
    /// Start over with `n` items, each on its own.
    pub(super) fn reset(&mut self, n: usize) {
        self.parent.clear();
        self.parent.extend(0..n);
        self.label.clear();
        self.label.resize(n, 0);
    }

    /// Join items `a` and `b`.
    pub(super) fn join(&mut self, a: usize, b: usize) {
        union(self.parent, a, b);
    }

    /// Join every item of `items` to the first.
    pub(super) fn join_all(&mut self, items: &[usize]) {
        if let Some((&first, rest)) = items.split_first() {
            for &a in rest {
                union(self.parent, first, a);
            }
        }
    }

    /// Label the components and list their items (a counting sort; `parent` serves as each
    /// component's next free place afterwards).
    pub(super) fn finish(&mut self) {
        let n = self.parent.len();
        let label = &mut *self.label;
        label.clear();
        label.resize(n, usize::MAX);
        let start = &mut *self.start;
        start.clear();
        start.push(0);
        for a in 0..n {
            let r = root(self.parent, a);
            if label[r] == usize::MAX {
                label[r] = start.len() - 1;
                start.push(0);
            }
            label[a] = label[r];
            start[label[a] + 1] += 1;
        }
        for c in 1..start.len() {
            start[c] += start[c - 1];
        }
        let rows = &mut *self.rows;
        rows.clear();
        rows.resize(n, 0);
        let next = &mut *self.parent;
        next.clear();
        next.extend_from_slice(&start[..start.len() - 1]);
        for (a, &c) in label.iter().enumerate() {
            rows[next[c]] = a;
            next[c] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_list_their_items_in_order() {
        let (mut parent, mut label, mut start, mut rows) = (vec![], vec![], vec![], vec![]);
        let mut isl = Islands {
            parent: &mut parent,
            label: &mut label,
            start: &mut start,
            rows: &mut rows,
        };
        isl.reset(7);
        isl.join(5, 1);
        isl.join_all(&[6, 3, 0]);
        isl.finish();
        // Components in the order of their first item: {0, 3, 6}, {1, 5}, {2}, {4}.
        assert_eq!(start, vec![0, 3, 5, 6, 7]);
        assert_eq!(rows, vec![0, 3, 6, 1, 5, 2, 4]);
        assert_eq!(label, vec![0, 1, 2, 0, 3, 1, 0]);
    }
}
