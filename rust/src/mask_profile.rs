//! The processor-set profile of conservative backfilling with forced allocators, compiled: Algorithm 1
//! of Mendonca (2017), section 4.5.1, over free sets held as bit masks of 64-bit words.
//!
//! The same object as the Python `SetProfile` of `schedlab.policies.rigid.profile`, operation for
//! operation: sorted slice starts `times`, the free set of each slice (`words` u64 words a slice,
//! bit `p` set when processor `p` is free), its size, neighbours with equal sets merged. `find`
//! returns the same start and free set as the Python search, the fit tests of the forced
//! allocators done on words (`cont`: a run of ones; `loc`: the `k` fullest clusters; `plat`: the
//! fullest node at one depth); the allocation itself stays with the Python allocator. Its windows'
//! ANDs slide over the slices (a suffix array and a running prefix, "two stacks") rather than
//! being rebuilt for each candidate start.
//!
//! Each slice also keeps its free count per block of `block` ids (the platform's clusters): a
//! window's free set holds at most, in each block, the fewest that any of its slices holds there.
//! For `loc` (blocks of the rule's cluster width) and `plat` (nodes of whole blocks) the search
//! slides these per-block minima (16-bit lanes) instead of the masks and refuses a candidate whose
//! minima cannot pass the fit test (the `k` largest sum below the size; no node's sum reaches
//! it). A candidate they let through is counted exactly only in the blocks that decide (the `k`
//! largest bounds, or the node of the largest), each count replacing its bound until the counts
//! pass or the bounds fail; the window's whole set is built once, for the start found. With
//! `loc` on RICC's fat tree the minima refused 6.49 of the 6.50 million candidates that reached
//! them over the first five days (the free ids of a cluster mostly stay the same from slice to
//! slice); over the whole first week 8.1 million passed them, of which 72,458 fit.
//! The windows' pivot moves to the end of the current window, so the first candidate's window is
//! read once, backwards; building those suffix meets stops at the first that fails the necessary
//! test (too few ids, or block minima that fail), which refuses every candidate below it.
//! Cost: reserving over s slices O(s (w + c)) for w words and c blocks a slice; a search O(B w),
//! or O(B c) with block minima, for B slices however long the windows, plus one test per candidate
//! start whose window holds enough ids: the fit test, O(w + c), or the bound, O(c), and where the
//! bound lets it through O(W) word operations per block counted, for windows of W slices.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ops::Range;

/// A set as its maximal runs: low ends, (exclusive) high ends.
type Runs = (Vec<i64>, Vec<i64>);

/// The fit test of a forced allocator, in numbers: see `MaskProfile::find`.
#[derive(Clone, Copy)]
enum Rule {
    Any,
    Run,
    Local { width: usize, k: usize },
    Level { width: usize },
}

/// Scratch of `MaskProfile::window_fits`: per-block values (bounds, then counts), which are
/// counted, blocks in the order chosen, a block's words.
#[derive(Default)]
struct Tally {
    vals: Vec<i64>,
    known: Vec<bool>,
    order: Vec<usize>,
    buf: Vec<u64>,
}

/// A lane of a window's summary: the meet of its slices' lanes (masks by AND, block counts by min).
trait Lane: Copy {
    const TOP: Self; // the meet of no slice
    fn meet(self, other: Self) -> Self;
}

impl Lane for u64 {
    const TOP: Self = !0;
    fn meet(self, other: Self) -> Self {
        self & other
    }
}

impl Lane for i16 {
    const TOP: Self = i16::MAX;
    fn meet(self, other: Self) -> Self {
        self.min(other)
    }
}

#[pyclass(module = "schedlab.native._core")]
pub struct MaskProfile {
    n: usize,
    words: usize,
    times: Vec<f64>,
    free: Vec<u64>, // slice i: free[i * words .. (i + 1) * words]
    sizes: Vec<i64>,
    block: usize,     // ids per counted block (0: no block counts)
    blocks: usize,    // blocks a slice
    counts: Vec<i16>, // slice i: free ids per block, counts[i * blocks .. (i + 1) * blocks]
}

/// Ones among bits `[lo, hi)` of `mask`.
fn count_range(mask: &[u64], lo: usize, hi: usize) -> i64 {
    if lo >= hi {
        return 0;
    }
    let (a, b) = (lo / 64, (hi - 1) / 64);
    let head = !0u64 << (lo % 64);
    let tail = !0u64 >> (63 - (hi - 1) % 64);
    if a == b {
        return (mask[a] & head & tail).count_ones() as i64;
    }
    ((mask[a] & head).count_ones() + (mask[b] & tail).count_ones()) as i64
        + popcount(&mask[a + 1..b])
}

/// Whether `mask` holds `size` consecutive ones (bits beyond the machine are zero).
fn has_run(mask: &[u64], size: i64) -> bool {
    let mut run: i64 = 0; // ones ending at the top of the words read so far
    for &word in mask {
        let t = word.trailing_ones();
        run += t as i64;
        if run >= size {
            return true;
        }
        if t == 64 {
            continue;
        }
        let mut x = word >> t; // bit 0 is a zero
        let mut pos = t;
        run = 0;
        while x != 0 {
            let z = x.trailing_zeros();
            x >>= z;
            pos += z;
            let o = x.trailing_ones();
            if o as i64 >= size {
                return true;
            }
            if pos + o == 64 {
                run = o as i64; // continues into the next word
                break;
            }
            x >>= o;
            pos += o;
        }
    }
    false
}

/// The maximal runs of ones of `mask`: their low ends and (exclusive) high ends.
fn runs(mask: &[u64]) -> Runs {
    let (mut los, mut his) = (Vec::new(), Vec::new());
    let mut inside = false;
    for (k, &word) in mask.iter().enumerate() {
        let mut x = if inside { !word } else { word }; // bits where the state changes are its ones
        let mut pos = 0u32;
        while pos < 64 {
            if x >> pos == 0 {
                break;
            }
            let z = (x >> pos).trailing_zeros();
            pos += z;
            let id = (k * 64) as i64 + pos as i64;
            if inside {
                his.push(id);
            } else {
                los.push(id);
            }
            inside = !inside;
            x = !x; // look for the next change
        }
    }
    if inside {
        his.push((mask.len() * 64) as i64);
    }
    (los, his)
}

/// Ones in `mask`: with the POPCNT instruction where the processor has it (the portable build
/// counts bits without it, several times slower), else Rust's portable count.
fn popcount(mask: &[u64]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the processor has POPCNT.
            return unsafe { popcount_hw(mask) };
        }
    }
    mask.iter().map(|w| w.count_ones() as i64).sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn popcount_hw(mask: &[u64]) -> i64 {
    mask.iter().map(|w| w.count_ones() as i64).sum()
}

/// The sum of the `k` largest of `values` (`1 <= k <= values.len()`); reorders them.
fn top_sum(values: &mut [i64], k: usize) -> i64 {
    values.select_nth_unstable_by(k - 1, |a, b| b.cmp(a)); // the k largest first
    values[..k].iter().sum()
}

impl MaskProfile {
    fn slice(&self, i: usize) -> &[u64] {
        &self.free[i * self.words..(i + 1) * self.words]
    }

    /// First index with `times[i] >= t` (Python's `bisect_left`).
    fn lower(&self, t: f64) -> usize {
        self.times.partition_point(|&x| x < t)
    }

    fn split(&mut self, t: f64) -> usize {
        let i = self.lower(t);
        if i == self.times.len() || self.times[i] != t {
            let (w, c) = (self.words, self.blocks);
            self.times.insert(i, t);
            self.free.extend_from_within((i - 1) * w..i * w);
            self.free[i * w..].rotate_right(w);
            self.counts.extend_from_within((i - 1) * c..i * c);
            self.counts[i * c..].rotate_right(c);
            self.sizes.insert(i, self.sizes[i - 1]);
        }
        i
    }

    fn merge_at(&mut self, i: usize) {
        if i > 0 && i < self.times.len() && self.slice(i) == self.slice(i - 1) {
            let (w, c) = (self.words, self.blocks);
            self.times.remove(i);
            self.free.drain(i * w..(i + 1) * w);
            self.counts.drain(i * c..(i + 1) * c);
            self.sizes.remove(i);
        }
    }

    /// The ids of `mask` in each block (blocks of whole words: their words' popcounts).
    fn block_counts(&self, mask: &[u64]) -> Vec<i16> {
        let b = self.block;
        if b == 0 {
            return Vec::new();
        }
        if b.is_multiple_of(64) {
            return mask
                .chunks(b / 64)
                .map(|words| popcount(words) as i16)
                .collect();
        }
        (0..self.blocks)
            .map(|c| count_range(mask, c * b, ((c + 1) * b).min(self.n)) as i16)
            .collect()
    }

    /// The fewest ids a block holds among `k` blocks that hold `size` together: `k` blocks of at most
    /// `block` ids holding `size` each lack at most `k * block - size` (0 if none is needed).
    fn local_floor(&self, k: usize, size: i64) -> i64 {
        (size - (self.block * (k - 1)) as i64).max(0)
    }

    /// Whether a window whose blocks hold at most `mins` free ids can pass `rule`'s fit test for
    /// `size` ids, for the rules the block counts bound (see `bounded`).
    fn block_bound(&self, mins: &[i16], size: i64, rule: Rule, scratch: &mut Vec<i64>) -> bool {
        match rule {
            Rule::Local { k, .. } => {
                // the usual answers without sorting: too few in all, in the fullest block, or in
                // blocks full enough (`local_floor`)
                let most = mins.iter().copied().max().unwrap_or(0) as i64;
                let all: i64 = mins.iter().map(|&m| m as i32).sum::<i32>() as i64;
                if all < size || most * (k as i64) < size {
                    return false;
                }
                if k == 1 || k >= mins.len() {
                    return true;
                }
                let floor = self.local_floor(k, size);
                scratch.clear();
                scratch.extend(mins.iter().map(|&m| m as i64).filter(|&m| m >= floor));
                // the k largest are among them, if there are k
                scratch.len() >= k && top_sum(scratch, k) >= size
            }
            Rule::Level { width } => mins
                .chunks(width / self.block)
                .any(|node| node.iter().map(|&m| m as i64).sum::<i64>() >= size),
            Rule::Any | Rule::Run => true,
        }
    }

    /// The free ids of block `b` over slices `window` (those of `mine` free from slice `first` on): the
    /// block's words ANDed over the window, `buf` their scratch. Stops once fewer than `need` are
    /// left, with that count (an upper bound below `need`).
    fn block_free(
        &self,
        b: usize,
        window: Range<usize>,
        first: usize,
        mine: &[u64],
        buf: &mut Vec<u64>,
        need: i64,
    ) -> i64 {
        let (lo, hi) = (b * self.block, ((b + 1) * self.block).min(self.n));
        let (a, z) = (lo / 64, (hi - 1) / 64 + 1);
        buf.clear();
        buf.resize(z - a, !0u64);
        buf[0] &= !0u64 << (lo % 64); // only the block's bits, so that a popcount counts it
        buf[z - a - 1] &= !0u64 >> (63 - (hi - 1) % 64);
        let start = window.start;
        for j in window {
            let row = &self.free[j * self.words + a..j * self.words + z];
            if j >= first {
                for ((x, f), m) in buf.iter_mut().zip(row).zip(&mine[a..z]) {
                    *x &= f | m;
                }
            } else {
                for (x, f) in buf.iter_mut().zip(row) {
                    *x &= f;
                }
            }
            if (j - start) % 4 == 3 {
                let left = popcount(buf);
                if left < need {
                    return left;
                }
            }
        }
        popcount(buf)
    }

    /// `rule`'s fit test on the free set of slices `window` (`mine` as in `block_free`), from its
    /// blocks' counts, counted exactly only where the bounds `mins` cannot decide: the blocks of
    /// the `k` largest bounds (`loc`) or of the node of the largest bound (`plat`), each
    /// count replacing its bound, until the exact counts pass or the bounds fail.
    #[allow(clippy::too_many_arguments)]
    fn window_fits(
        &self,
        window: Range<usize>,
        first: usize,
        mine: &[u64],
        mins: &[i16],
        size: i64,
        rule: Rule,
        t: &mut Tally,
    ) -> bool {
        t.vals.clear();
        t.vals.extend(mins.iter().map(|&m| m as i64));
        t.known.clear();
        t.known.resize(mins.len(), false);
        let nodes = match rule {
            Rule::Level { width } => width / self.block,
            _ => 1,
        };
        let (k, floor) = match rule {
            Rule::Local { k, .. } => (k.min(mins.len()), self.local_floor(k.min(mins.len()), size)),
            _ => (0, 0),
        };
        t.order.clear();
        t.order
            .extend((0..mins.len()).filter(|&b| t.vals[b] >= floor));
        loop {
            // the blocks whose bounds decide: the k largest (loc; among those full enough, see
            // `local_floor`), or the node of the largest sum (plat)
            let (ub, chosen) = match rule {
                Rule::Local { .. } => {
                    let vals = &t.vals;
                    t.order.retain(|&b| vals[b] >= floor);
                    if t.order.len() < k {
                        return false;
                    }
                    t.order
                        .select_nth_unstable_by(k - 1, |&a, &b| vals[b].cmp(&vals[a]));
                    (t.order[..k].iter().map(|&b| vals[b]).sum::<i64>(), 0..k)
                }
                _ => {
                    let (mut best, mut at) = (-1i64, 0usize);
                    for (x, node) in t.vals.chunks(nodes).enumerate() {
                        let sum: i64 = node.iter().sum();
                        if sum > best {
                            (best, at) = (sum, x);
                        }
                    }
                    t.order.clear();
                    t.order
                        .extend(at * nodes..((at + 1) * nodes).min(mins.len()));
                    let len = t.order.len();
                    (best, 0..len)
                }
            };
            if ub < size {
                return false;
            }
            let mut exact = true;
            for x in chosen {
                let b = t.order[x];
                if !t.known[b] {
                    // below `need`, b cannot pass with the others chosen (their values only go down)
                    let need = size - (ub - t.vals[b]);
                    t.vals[b] = self.block_free(b, window.clone(), first, mine, &mut t.buf, need);
                    t.known[b] = true;
                    exact = false;
                }
            }
            if exact {
                // the deciding blocks are counted (exactly, or below what would let them pass): no other block can beat them
                return true;
            }
        }
    }

    /// Whether the block counts bound `rule`'s fit test: clusters of one block (`loc`), nodes of whole blocks (`plat`).
    fn bounded(&self, rule: Rule) -> bool {
        match rule {
            Rule::Local { width, .. } => self.block > 0 && width == self.block,
            Rule::Level { width } => self.block > 0 && width % self.block == 0,
            Rule::Any | Rule::Run => false,
        }
    }

    /// The two-stacks search of `find`: the first candidate `i < n` (windows of `duration` from
    /// `times[i]`) that `accept(i, ei, summary)` takes, the summary of slices `[i, ei)` the meet
    /// of their `lanes` lanes each (`load(j, acc)` meets slice `j`'s into `acc`). Candidates
    /// whose window holds a slice where `ok` fails, or whose window's slices from the pivot on
    /// fail `holds` (monotone: a meet of more slices fails too), are skipped unseen.
    #[allow(clippy::too_many_arguments)]
    fn slide<T: Lane>(
        &self,
        n: usize,
        duration: f64,
        lanes: usize,
        ok: impl Fn(usize) -> bool,
        load: impl Fn(usize, &mut [T]),
        mut holds: impl FnMut(&[T]) -> bool,
        mut accept: impl FnMut(usize, usize, &[T]) -> bool,
    ) -> Option<usize> {
        let (total, w) = (self.times.len(), lanes);
        // The window of candidate i is slices [i, ei): their meet is S[i] meet P, S holding the suffix
        // meets of [x, p) (pivot p) for the candidates x from `base` on and P the meet of [p, e_p);
        // when i reaches p, the pivot moves to the end of i's window and the slices before it
        // become S (each slice loaded at most twice), so a window costs O(w) amortized, not O(W w).
        let mut suffix: Vec<T> = Vec::new(); // S[x] at (x - base) * w, for base <= x < min(p, n)
        let (mut base, mut p, mut e_p) = (0usize, 0usize, 0usize);
        let mut prefix = vec![T::TOP; w];
        let mut prefix_holds = Some(true); // None until tested (P is the top while empty)
        let mut acc = vec![T::TOP; w];
        let mut window = vec![T::TOP; w];
        let (mut i, mut e, mut bad) = (0usize, 0usize, 0usize); // bad: the first slice >= i too full
        while i < n {
            bad = bad.max(i);
            let end = self.times[i] + duration;
            while e < total && self.times[e] < end {
                e += 1;
            }
            let ei = e.max(i + 1);
            while bad < ei && ok(bad) {
                bad += 1;
            }
            if bad < ei {
                i = bad + 1; // every candidate up to `bad` has it in its window
                continue;
            }
            if i >= p {
                // the whole window becomes S: suffix meets from ei - 1 down to i, kept for candidates;
                // the first that fails `holds` fails every candidate down to i (their windows hold it)
                (base, p) = (i, ei);
                suffix.clear();
                suffix.resize((p.min(n) - base) * w, T::TOP);
                acc.fill(T::TOP);
                let mut cut = i;
                for x in (i..p).rev() {
                    load(x, &mut acc);
                    if x < n {
                        if !holds(&acc) {
                            cut = x + 1;
                            break;
                        }
                        suffix[(x - base) * w..(x - base + 1) * w].copy_from_slice(&acc);
                    }
                }
                prefix.fill(T::TOP);
                prefix_holds = Some(true);
                e_p = p;
                if cut > i {
                    i = cut;
                    continue;
                }
            }
            while e_p < ei {
                load(e_p, &mut prefix);
                prefix_holds = None;
                e_p += 1;
            }
            if !*prefix_holds.get_or_insert_with(|| holds(&prefix)) {
                i = p; // every window up to the pivot holds P's slices
                continue;
            }
            let row = &suffix[(i - base) * w..(i - base + 1) * w];
            let window: &[T] = if e_p == p {
                row // P is empty
            } else {
                for ((x, a), b) in window.iter_mut().zip(row).zip(&prefix) {
                    *x = a.meet(*b);
                }
                &window
            };
            if accept(i, ei, window) {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    fn mask_of(&self, ranges: &[(i64, i64)]) -> PyResult<Vec<u64>> {
        let mut mask = vec![0u64; self.words];
        for &(lo, hi) in ranges {
            if lo < 0 || hi > self.n as i64 || lo > hi {
                return Err(PyValueError::new_err(format!(
                    "range [{lo}, {hi}) outside the machine"
                )));
            }
            for p in lo as usize..hi as usize {
                mask[p / 64] |= 1u64 << (p % 64);
            }
        }
        Ok(mask)
    }

    /// `acc &= ` the free set of slice `j`, with the ids of `mine` counted free from slice `first` on.
    fn and_slice(&self, acc: &mut [u64], j: usize, first: usize, mine: &[u64]) {
        let f = self.slice(j);
        if j >= first {
            for ((a, x), m) in acc.iter_mut().zip(f).zip(mine) {
                *a &= x | m;
            }
        } else {
            for (a, x) in acc.iter_mut().zip(f) {
                *a &= x;
            }
        }
    }

    /// The allocator's fit test on the set `window` (of at least `size` ids); `scratch` holds its cluster counts.
    fn fits(&self, window: &[u64], size: i64, rule: Rule, scratch: &mut Vec<i64>) -> bool {
        match rule {
            Rule::Any => true,
            Rule::Run => has_run(window, size),
            Rule::Level { width } => (0..self.n.div_ceil(width))
                .any(|a| count_range(window, a * width, ((a + 1) * width).min(self.n)) >= size),
            Rule::Local { width, k } => {
                let clusters = self.n.div_ceil(width);
                if k >= clusters {
                    return popcount(window) >= size;
                }
                scratch.clear();
                scratch.extend(
                    (0..clusters)
                        .map(|c| count_range(window, c * width, ((c + 1) * width).min(self.n))),
                );
                top_sum(scratch, k) >= size
            }
        }
    }
}

#[pymethods]
impl MaskProfile {
    /// All `n_procs` processors free from `now` on; `block` ids a block whose free counts each slice
    /// keeps (the platform's cluster size: the searches of `loc` and `plat` bound their fit tests
    /// with them), 0 for none (and for blocks over 32,767 ids, the counts being 16-bit).
    #[new]
    #[pyo3(signature = (n_procs, now, block=0))]
    fn new(n_procs: usize, now: f64, block: usize) -> Self {
        let words = n_procs.div_ceil(64).max(1);
        let mut free = vec![!0u64; words];
        if !n_procs.is_multiple_of(64) {
            free[words - 1] = (1u64 << (n_procs % 64)) - 1;
        }
        if n_procs == 0 {
            free[0] = 0;
        }
        let block = if block <= i16::MAX as usize { block } else { 0 };
        let mut profile = MaskProfile {
            n: n_procs,
            words,
            times: vec![now],
            free,
            sizes: vec![n_procs as i64],
            block,
            blocks: 0,
            counts: vec![],
        };
        if block > 0 {
            profile.blocks = n_procs.div_ceil(block);
            profile.counts = profile.block_counts(&profile.free);
        }
        profile
    }

    /// Slice start times.
    #[getter]
    fn times(&self) -> Vec<f64> {
        self.times.clone()
    }

    /// Free processors per slice.
    #[getter]
    fn sizes(&self) -> Vec<i64> {
        self.sizes.clone()
    }

    /// The free set of slice `i` as little-endian bytes of its mask (`int.from_bytes(..., "little")`).
    fn free_bytes<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyBytes>> {
        if i >= self.times.len() {
            return Err(PyValueError::new_err(format!(
                "slice {i} of {}",
                self.times.len()
            )));
        }
        let raw: Vec<u8> = self.slice(i).iter().flat_map(|w| w.to_le_bytes()).collect();
        Ok(PyBytes::new(py, &raw))
    }

    /// Forget the past: the profile starts at `now`.
    fn trim(&mut self, now: f64) {
        let i = self.times.partition_point(|&x| x <= now).saturating_sub(1);
        if i > 0 {
            self.times.drain(..i);
            self.free.drain(..i * self.words);
            self.counts.drain(..i * self.blocks);
            self.sizes.drain(..i);
        }
        self.times[0] = now;
    }

    /// Flip the processors of `ranges` over `[start, end)` (end may be infinite): taken when `take`,
    /// else given back; the caller knows they were all free, or all taken.
    fn apply(&mut self, start: f64, end: f64, ranges: Vec<(i64, i64)>, take: bool) -> PyResult<()> {
        let mask = self.mask_of(&ranges)?;
        let count = popcount(&mask);
        let delta = if take { -count } else { count };
        let sign = if take { -1 } else { 1 };
        let per_block = self.block_counts(&mask);
        let i = self.split(start);
        let j = if end == f64::INFINITY {
            self.times.len()
        } else {
            self.split(end)
        };
        let (w, c) = (self.words, self.blocks);
        for s in i..j {
            for (f, m) in self.free[s * w..(s + 1) * w].iter_mut().zip(&mask) {
                *f ^= m;
            }
            for (f, m) in self.counts[s * c..(s + 1) * c].iter_mut().zip(&per_block) {
                *f += sign * m;
            }
            self.sizes[s] += delta;
        }
        self.merge_at(j);
        self.merge_at(i);
        Ok(())
    }

    /// Python's `bisect_left(times, t)`: the slices starting before `t`.
    fn index(&self, t: f64) -> usize {
        self.lower(t)
    }

    /// The largest free count among slices `0 .. stop` (0 if none).
    fn max_size(&self, stop: usize) -> i64 {
        self.sizes[..stop.min(self.sizes.len())]
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    }

    /// The earliest slice start (before slice `stop`, if given) with `procs` processors free by count
    /// for `duration`; from `times[stop]` on every processor counts free; infinity if none.
    #[pyo3(signature = (procs, duration, stop=None))]
    fn earliest_count(&self, procs: i64, duration: f64, stop: Option<usize>) -> f64 {
        let (times, free) = (&self.times, &self.sizes);
        let n = stop.unwrap_or(times.len());
        let mut i = 0;
        'candidates: while i < n {
            if free[i] < procs {
                i += 1;
                continue;
            }
            let end = times[i] + duration;
            let mut j = i + 1;
            while j < n && times[j] < end {
                if free[j] < procs {
                    i = j + 1;
                    continue 'candidates;
                }
                j += 1;
            }
            return times[i];
        }
        f64::INFINITY
    }

    /// The Python `SetProfile.earlier`: the earliest start before `start` for a job holding `ranges`
    /// from `start` on (only now, the first slice, with `now_only`), `find`'s answer or `(inf,
    /// None)`; the free counts rule most jobs out first (`max_size`, `earliest_count`).
    #[pyo3(signature = (procs, duration, rule, width, k, start, ranges, now_only=false))]
    #[allow(clippy::too_many_arguments)]
    fn earlier(
        &mut self,
        procs: i64,
        duration: f64,
        rule: &str,
        width: usize,
        k: usize,
        start: f64,
        ranges: Vec<(i64, i64)>,
        now_only: bool,
    ) -> PyResult<(f64, Option<Runs>)> {
        let stop = if now_only { 1 } else { self.lower(start) };
        if self.max_size(stop) < procs || self.earliest_count(procs, duration, Some(stop)) >= start
        {
            return Ok((f64::INFINITY, None));
        }
        self.find(
            procs,
            duration,
            rule,
            width,
            k,
            Some(stop),
            Some((start, ranges)),
        )
    }

    /// Algorithm 1, the answer of the Python `SetProfile.find`: the earliest slice start (before slice
    /// `stop`, if given) whose window of `duration` has a free set the fit test accepts; `(start,
    /// (los, his))`, the runs of that set, or `(inf, None)`. The test: `rule` "any" (every set of `procs` ids), "run"
    /// (`procs` consecutive ids), "local" (the `k` fullest blocks of `width` ids hold `procs`),
    /// "level" (some block of `width` ids holds `procs`); blocks are consecutive from id 0, the last
    /// one possibly shorter. `own = (start, ranges)`: a reservation whose ids count as free from
    /// the slice at `start` on.
    #[pyo3(signature = (procs, duration, rule, width=0, k=0, stop=None, own=None))]
    #[allow(clippy::too_many_arguments)]
    fn find(
        &mut self,
        procs: i64,
        duration: f64,
        rule: &str,
        width: usize,
        k: usize,
        stop: Option<usize>,
        own: Option<(f64, Vec<(i64, i64)>)>,
    ) -> PyResult<(f64, Option<Runs>)> {
        let rule = match rule {
            "any" => Rule::Any,
            "run" => Rule::Run,
            "local" if width > 0 && k > 0 => Rule::Local { width, k },
            "level" if width > 0 => Rule::Level { width },
            _ => {
                return Err(PyValueError::new_err(format!(
                    "fit rule {rule:?} (width {width}, k {k})"
                )))
            }
        };
        let test = !matches!(rule, Rule::Any);
        let total = self.times.len();
        let n = stop.unwrap_or(total).min(total);
        let w = self.words;
        let (first, mine, count) = match &own {
            Some((start, ranges)) => {
                let m = self.mask_of(ranges)?;
                let c = popcount(&m);
                (self.lower(*start), m, c)
            }
            None => (total, vec![0u64; w], 0),
        };
        let ok = |j: usize| self.sizes[j] + if j >= first { count } else { 0 } >= procs;
        let load_mask = |j: usize, acc: &mut [u64]| self.and_slice(acc, j, first, &mine);
        let mut scratch = Vec::new();
        let mut found = vec![0u64; w];
        let at = if self.bounded(rule) {
            // slide the per-block minima; build and test the masks only where they let a candidate through
            let mine_blocks = self.block_counts(&mine);
            let c = self.blocks;
            let load = |j: usize, acc: &mut [i16]| {
                let row = &self.counts[j * c..(j + 1) * c];
                if j >= first {
                    for ((a, x), m) in acc.iter_mut().zip(row).zip(&mine_blocks) {
                        *a = (*a).min(x + m);
                    }
                } else {
                    for (a, x) in acc.iter_mut().zip(row) {
                        *a = (*a).min(*x);
                    }
                }
            };
            let mut tally = Tally::default();
            let holds = |mins: &[i16]| self.block_bound(mins, procs, rule, &mut scratch);
            self.slide(n, duration, c, ok, load, holds, |i, ei, mins| {
                if !self.block_bound(mins, procs, rule, &mut tally.vals)
                    || !self.window_fits(i..ei, first, &mine, mins, procs, rule, &mut tally)
                {
                    return false;
                }
                found.fill(!0u64);
                for j in i..ei {
                    load_mask(j, &mut found);
                }
                true
            })
        } else {
            self.slide(
                n,
                duration,
                w,
                ok,
                load_mask,
                |prefix| popcount(prefix) >= procs,
                |_, _, window| {
                    if popcount(window) < procs
                        || (test && !self.fits(window, procs, rule, &mut scratch))
                    {
                        return false;
                    }
                    found.copy_from_slice(window);
                    true
                },
            )
        };
        Ok(match at {
            Some(i) => (self.times[i], Some(runs(&found))),
            None => (f64::INFINITY, None),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_across_words() {
        let mut m = vec![0u64; 3];
        for p in 60..130 {
            m[p / 64] |= 1 << (p % 64);
        }
        assert!(has_run(&m, 70));
        assert!(!has_run(&m, 71));
        m[1] &= !(1 << 3); // id 67 taken: runs 60..67 (7) and 68..130 (62)
        assert!(has_run(&m, 62));
        assert!(!has_run(&m, 63));
        assert_eq!(count_range(&m, 60, 130), 69);
        assert_eq!(count_range(&m, 64, 128), 63);
        assert_eq!(count_range(&m, 61, 62), 1);
        let top = vec![0u64, 0xffff_0000_0000_0000]; // a run of 16 ending at the last bit
        assert!(has_run(&top, 16));
        assert!(!has_run(&top, 17));
        assert_eq!(runs(&top), (vec![112], vec![128]));
        assert_eq!(runs(&m), (vec![60, 68], vec![67, 130]));
    }

    #[test]
    fn profile_reserves_and_merges() {
        let mut p = MaskProfile::new(130, 0.0, 0);
        p.apply(1.0, 3.0, vec![(0, 100)], true).unwrap();
        assert_eq!(p.times, vec![0.0, 1.0, 3.0]);
        assert_eq!(p.sizes, vec![130, 30, 130]);
        p.apply(1.0, 3.0, vec![(0, 100)], false).unwrap();
        assert_eq!(p.times, vec![0.0]);
        assert_eq!(p.earliest_count(130, 5.0, None), 0.0);
    }

    #[test]
    fn block_counts_follow_the_masks() {
        // random takes and gives back (xorshift), trims; each slice's block counts must be its mask's
        for (m, block) in [(200usize, 24usize), (320, 128)] {
            // 9 blocks, the last one of 8 ids; 3 blocks of whole words, the last one of 64 ids
            block_counts_follow_the_masks_on(m, block);
        }
    }

    type Ranges = Vec<(i64, i64)>;

    fn block_counts_follow_the_masks_on(m: usize, block: usize) {
        let mut p = MaskProfile::new(m, 0.0, block);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        let mut held: Vec<(f64, f64, Ranges)> = Vec::new(); // reservations: start, end, ids
        let mut now = 0.0;
        for step in 0..400 {
            if step % 3 == 2 && !held.is_empty() {
                let (start, end, ranges) = held.swap_remove(next(held.len() as u64) as usize);
                if end > now {
                    p.apply(start.max(now), end, ranges, false).unwrap();
                }
            } else if step % 17 == 16 {
                now += 1.0;
                p.trim(now);
            } else {
                let start = now + next(8) as f64;
                let end = start + 1.0 + next(5) as f64;
                let mut free = vec![!0u64; p.words]; // free over [start, end): take some of it
                for s in 0..p.times.len() {
                    if p.times[s] < end && (s + 1 == p.times.len() || p.times[s + 1] > start) {
                        for (f, x) in free.iter_mut().zip(p.slice(s)) {
                            *f &= x;
                        }
                    }
                }
                let (los, his) = runs(&free);
                let ranges: Vec<(i64, i64)> = los
                    .iter()
                    .zip(&his)
                    .filter(|_| next(2) == 0)
                    .map(|(&lo, &hi)| (lo, hi.min(lo + 30)))
                    .collect();
                if !ranges.is_empty() {
                    p.apply(start, end, ranges.clone(), true).unwrap();
                    held.push((start, end, ranges));
                }
            }
            for s in 0..p.times.len() {
                let recount: Vec<i16> = (0..p.blocks)
                    .map(|c| count_range(p.slice(s), c * block, ((c + 1) * block).min(m)) as i16)
                    .collect();
                assert_eq!(
                    p.counts[s * p.blocks..(s + 1) * p.blocks],
                    recount[..],
                    "step {step}"
                );
                assert_eq!(p.sizes[s], popcount(p.slice(s)));
            }
        }
    }
}
