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
//! Cost: reserving over s slices O(s w) word operations for w words a slice; a search O(B w) for
//! B slices however long the windows, plus one fit test, O(w) (and O(c) for c clusters), per
//! candidate start whose window holds enough ids.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

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

#[pyclass(module = "schedlab.native._core")]
pub struct MaskProfile {
    n: usize,
    words: usize,
    times: Vec<f64>,
    free: Vec<u64>, // slice i: free[i * words .. (i + 1) * words]
    sizes: Vec<i64>,
    scratch: Vec<i64>, // per-cluster counts of the `loc` test
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
    ((mask[a] & head).count_ones() + (mask[b] & tail).count_ones()) as i64 + popcount(&mask[a + 1..b])
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
            let w = self.words;
            self.times.insert(i, t);
            let copy: Vec<u64> = self.free[(i - 1) * w..i * w].to_vec();
            self.free.splice(i * w..i * w, copy);
            self.sizes.insert(i, self.sizes[i - 1]);
        }
        i
    }

    fn merge_at(&mut self, i: usize) {
        if i > 0 && i < self.times.len() && self.slice(i) == self.slice(i - 1) {
            let w = self.words;
            self.times.remove(i);
            self.free.drain(i * w..(i + 1) * w);
            self.sizes.remove(i);
        }
    }

    fn mask_of(&self, ranges: &[(i64, i64)]) -> PyResult<Vec<u64>> {
        let mut mask = vec![0u64; self.words];
        for &(lo, hi) in ranges {
            if lo < 0 || hi > self.n as i64 || lo > hi {
                return Err(PyValueError::new_err(format!("range [{lo}, {hi}) outside the machine")));
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

    fn fits(&mut self, window: &[u64], size: i64, rule: Rule) -> bool {
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
                self.scratch.clear();
                for c in 0..clusters {
                    self.scratch.push(count_range(window, c * width, ((c + 1) * width).min(self.n)));
                }
                self.scratch.select_nth_unstable_by(k - 1, |a, b| b.cmp(a)); // the k largest first
                self.scratch[..k].iter().sum::<i64>() >= size
            }
        }
    }
}

#[pymethods]
impl MaskProfile {
    /// All `n_procs` processors free from `now` on.
    #[new]
    fn new(n_procs: usize, now: f64) -> Self {
        let words = n_procs.div_ceil(64).max(1);
        let mut free = vec![!0u64; words];
        if !n_procs.is_multiple_of(64) {
            free[words - 1] = (1u64 << (n_procs % 64)) - 1;
        }
        if n_procs == 0 {
            free[0] = 0;
        }
        MaskProfile { n: n_procs, words, times: vec![now], free, sizes: vec![n_procs as i64], scratch: Vec::new() }
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
            return Err(PyValueError::new_err(format!("slice {i} of {}", self.times.len())));
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
        let i = self.split(start);
        let j = if end == f64::INFINITY { self.times.len() } else { self.split(end) };
        let w = self.words;
        for s in i..j {
            for (f, m) in self.free[s * w..(s + 1) * w].iter_mut().zip(&mask) {
                *f ^= m;
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
        self.sizes[..stop.min(self.sizes.len())].iter().copied().max().unwrap_or(0)
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
            _ => return Err(PyValueError::new_err(format!("fit rule {rule:?} (width {width}, k {k})"))),
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
        let ok = |s: &Self, j: usize| s.sizes[j] + if j >= first { count } else { 0 } >= procs;
        // The window of candidate i is slices [i, ei): their AND is S[i] & P, S holding the suffix
        // ANDs of [base, p) (pivot p) and P the AND of [p, e_p); when i reaches p, the slices of P
        // move into S (each slice at most once), so a window costs O(w) amortized, not O(W w).
        let mut suffix: Vec<u64> = Vec::new(); // S[x] at (p - 1 - x) * w
        let (mut p, mut e_p) = (0usize, 0usize);
        let mut prefix = vec![!0u64; w];
        let mut prefix_ones = Some(i64::MAX); // P's size, None until counted (P is every id while empty)
        let mut window = vec![0u64; w];
        let (mut i, mut e, mut bad) = (0usize, 0usize, 0usize); // bad: the first slice >= i too full
        while i < n {
            bad = bad.max(i);
            let end = self.times[i] + duration;
            while e < total && self.times[e] < end {
                e += 1;
            }
            let ei = e.max(i + 1);
            while bad < ei && ok(self, bad) {
                bad += 1;
            }
            if bad < ei {
                i = bad + 1; // every candidate up to `bad` has it in its window
                continue;
            }
            if i >= p {
                // the slices of P become S: suffix ANDs from e_p - 1 down to i, stored in that order
                p = e_p.max(i);
                suffix.clear();
                let mut acc = vec![!0u64; w];
                for x in (i..p).rev() {
                    self.and_slice(&mut acc, x, first, &mine);
                    suffix.extend_from_slice(&acc);
                }
                prefix.fill(!0u64);
                prefix_ones = Some(i64::MAX);
                e_p = p;
            }
            while e_p < ei {
                self.and_slice(&mut prefix, e_p, first, &mine);
                prefix_ones = None;
                e_p += 1;
            }
            let ones = *prefix_ones.get_or_insert_with(|| popcount(&prefix)); // counted once P stops growing
            if ones < procs {
                i = p.max(i + 1); // every window up to the pivot holds P's slices
                continue;
            }
            if i < p {
                let at = p - 1 - i;
                for ((x, a), b) in window.iter_mut().zip(&suffix[at * w..(at + 1) * w]).zip(&prefix) {
                    *x = a & b;
                }
                if popcount(&window) < procs {
                    i += 1;
                    continue;
                }
            } else {
                window.copy_from_slice(&prefix);
            }
            if !test || self.fits(&window, procs, rule) {
                return Ok((self.times[i], Some(runs(&window))));
            }
            i += 1;
        }
        Ok((f64::INFINITY, None))
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
        let mut p = MaskProfile::new(130, 0.0);
        p.apply(1.0, 3.0, vec![(0, 100)], true).unwrap();
        assert_eq!(p.times, vec![0.0, 1.0, 3.0]);
        assert_eq!(p.sizes, vec![130, 30, 130]);
        p.apply(1.0, 3.0, vec![(0, 100)], false).unwrap();
        assert_eq!(p.times, vec![0.0]);
        assert_eq!(p.earliest_count(130, 5.0, None), 0.0);
    }
}
