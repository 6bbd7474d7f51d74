//! The fixed-order scatter of the pair loops over half neighbour lists: the slots cut into
//! chunks of at least the lists' reach, the even chunks run in parallel, then the odd ones,
//! so that every pair's term can be added to both of its particles without atomics or locks,
//! in an order fixed by the lists alone (not by the number of threads).
use rayon::prelude::*;

/// The fewest slots in a chunk (fewer, longer chunks cost less to schedule).
pub const MIN_CHUNK: usize = 256;

/// Slots per chunk for `len` slots whose later neighbours lie at most `reach` slots after
/// them: at least the reach (and [`MIN_CHUNK`]). Where the slots make four such chunks or
/// more, their number is (but for rounding, beyond 256 chunks) the largest multiple of four
/// that keeps that bound, the slots shared evenly: each phase then has an even number of chunks of equal length, which two threads
/// share equally (an odd number kept one thread idle for a chunk's length).
pub fn chunk_len(len: usize, reach: usize) -> usize {
    let least = reach.max(MIN_CHUNK);
    let most = len / least;
    if most < 4 {
        return least;
    }
    len.div_ceil(most - most % 4)
}

/// Run `row(i, first, window)` for every slot `i` of `acc` in chunks of `chunk` slots: the
/// even chunks in parallel, then the odd ones, each in slot order, `window` being `acc` from
/// the chunk's first slot to the end of the next chunk (see
/// [`super::neighbours::NeighbourLists::scatter`]).
pub fn scatter_chunks<T: Send>(
    acc: &mut [T],
    chunk: usize,
    row: impl Fn(usize, usize, &mut [T]) + Sync,
) {
    // The second array holds nothing (a zero-sized type allocates nothing).
    let mut none = vec![(); acc.len()];
    scatter_chunks2(acc, &mut none, chunk, |i, first, window, _| {
        row(i, first, window)
    });
}

/// [`scatter_chunks`] over two accumulator arrays of the same slots at once: `row(i, first,
/// window_a, window_b)`, both windows cut at the same slots.
pub fn scatter_chunks2<A: Send, B: Send>(
    a: &mut [A],
    b: &mut [B],
    chunk: usize,
    row: impl Fn(usize, usize, &mut [A], &mut [B]) + Sync,
) {
    let n = a.len().min(b.len());
    in_pool(|| {
        for phase in 0..2 {
            let off = phase * chunk;
            if off >= n {
                break;
            }
            a[off..n]
                .par_chunks_mut(2 * chunk)
                .zip(b[off..n].par_chunks_mut(2 * chunk))
                .enumerate()
                .for_each(|(k, (wa, wb))| {
                    let first = off + 2 * k * chunk;
                    for i in first..(first + chunk).min(n) {
                        row(i, first, wa, wb);
                    }
                });
        }
    })
}

/// Run `op` on a thread of the pool, so that its parallel loops start from inside it: rayon
/// queues a job for each loop started from outside, and its queue allocates a block of slots
/// every 63 jobs.
pub fn in_pool<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| op())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_come_in_fours_of_equal_length_and_never_shorter_than_the_reach() {
        // 69,984 slots at a reach of 3,830: 18 chunks would fit, 16 are taken.
        assert_eq!(chunk_len(69_984, 3_830), 4_374);
        for (len, reach) in [
            (69_984, 3_830),
            (187_500, 7_400),
            (3_100, 700),
            (10_000, 2_400),
        ] {
            let c = chunk_len(len, reach);
            let chunks = len.div_ceil(c);
            assert!(
                c >= reach && chunks % 4 == 0,
                "{len} slots, reach {reach}: {c}"
            );
            // Equal lengths: the last chunk is short by less than one slot per chunk.
            assert!(chunks * c - len < chunks, "{len} slots, reach {reach}: {c}");
        }
        // Fewer than four chunks' worth: chunks of the reach (at least MIN_CHUNK).
        assert_eq!(chunk_len(10_000, 3_000), 3_000);
        assert_eq!(chunk_len(500, 10), MIN_CHUNK);
    }

    #[test]
    fn every_slot_runs_once_within_its_window() {
        let (n, chunk) = (5_000, 600);
        let mut acc = vec![(0u32, 0usize); n];
        scatter_chunks(&mut acc, chunk, |i, first, w| {
            assert_eq!(first % chunk, 0);
            assert!(i >= first && i - first < chunk && w.len() <= 2 * chunk);
            w[i - first].0 += 1;
            // A pair into the next chunk, as far as the window reaches.
            let j = (i + chunk).min(first + w.len() - 1);
            w[j - first].1 += 1;
        });
        assert!(acc.iter().all(|a| a.0 == 1));
        assert_eq!(acc.iter().map(|a| a.1).sum::<usize>(), n);
        // Two arrays at once: the same windows of both.
        let (mut a, mut b) = (vec![0u32; n], vec![0usize; n]);
        scatter_chunks2(&mut a, &mut b, chunk, |i, first, wa, wb| {
            assert_eq!(wa.len(), wb.len());
            wa[i - first] += 1;
            wb[i - first] = i;
        });
        assert!(a.iter().all(|&a| a == 1));
        assert!(b.iter().enumerate().all(|(i, &b)| b == i));
    }
}
