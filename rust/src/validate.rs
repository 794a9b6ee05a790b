//! Rule 9 of the validator (`validation.py`): no processor used by two executions at once.
//!
//! Independent of the engine (it shares no code with `engine.rs` or the policies): it reads the
//! executions' flat ranges and replays their start and release events in the order the validator
//! sorted them, keeping the busy processors as a bitset. Cost O(E + R * n_procs / 64) for E events
//! and R ranges, against one Python big-integer operation of n_procs bits per range before.

/// Replay `events` (code e < m: release of execution e; m + e: its start); execution e holds
/// `[lo[k], hi[k])` for k in `offsets[e]..offsets[e + 1]`. Returns the first clash as
/// (lowest processor used twice, starting execution), or None.
pub fn first_double_booking(
    events: &[i64],
    m: usize,
    offsets: &[i64],
    lo: &[i64],
    hi: &[i64],
    n_procs: usize,
) -> Option<(i64, usize)> {
    let mut busy = vec![0u64; n_procs.div_ceil(64) + 1];
    for &ev in events {
        let (e, starts) = if (ev as usize) < m { (ev as usize, false) } else { (ev as usize - m, true) };
        for k in offsets[e] as usize..offsets[e + 1] as usize {
            let (a, b) = (lo[k] as usize, hi[k] as usize);
            if starts {
                if let Some(p) = first_set(&busy, a, b) {
                    return Some((p as i64, e));
                }
                set_range(&mut busy, a, b, true);
            } else {
                set_range(&mut busy, a, b, false);
            }
        }
    }
    None
}

/// Mask of the bits of word `w` that lie in `[a, b)`.
#[inline]
fn word_mask(w: usize, a: usize, b: usize) -> u64 {
    let (first, last) = (w * 64, w * 64 + 64);
    let from = a.max(first) - first;
    let to = b.min(last) - first;
    if to - from == 64 {
        u64::MAX
    } else {
        ((1u64 << (to - from)) - 1) << from
    }
}

fn first_set(bits: &[u64], a: usize, b: usize) -> Option<usize> {
    for (w, &word) in bits.iter().enumerate().take(b.div_ceil(64)).skip(a / 64) {
        let hit = word & word_mask(w, a, b);
        if hit != 0 {
            return Some(w * 64 + hit.trailing_zeros() as usize);
        }
    }
    None
}

fn set_range(bits: &mut [u64], a: usize, b: usize, on: bool) {
    for (w, word) in bits.iter_mut().enumerate().take(b.div_ceil(64)).skip(a / 64) {
        let mask = word_mask(w, a, b);
        if on {
            *word |= mask;
        } else {
            *word &= !mask;
        }
    }
}
