//! The availability profile of conservative backfilling on processor counts, as
//! `policies/rigid/profile.py`'s `Profile`: from each breakpoint on, until the next one, a number
//! of processors is free; the last breakpoint extends to infinity.
//!
//! Unlike the Python list, the breakpoints live in blocks of at most [`CAP`] consecutive ones (a
//! B-tree of height two): each block keeps its breakpoints' times and running totals (free counts)
//! relative to a `base` (the free count just before the block), and the smallest and largest of
//! them, in a short array of blocks in time order. A change of the free count from `t` on adds to
//! the running totals of one block from `t`'s place on and to the bases of the later blocks; "the
//! first breakpoint from t on where k processors are free" or "the last one before t where fewer
//! are" scan one block from `t`'s place and skip whole blocks by their smallest or largest total.
//! With the one to a few thousand breakpoints of conservative backfilling's queues, these are
//! short contiguous loops that the compiler vectorizes, faster than the O(log B) descents of the
//! balanced search tree (a treap) this replaced, whose every step waits on a load: full compression
//! on full RICC took 40 % less time. [`Profile::earliest`] answers Algorithm 1's
//! question with them, jumping past the last blocking breakpoint of a failed window.
//!
//! Breakpoints whose change drops to zero are removed where they are touched; the answers never
//! depend on which breakpoints with a zero change remain (an earliest start is always a breakpoint
//! where the free count changes, or the first one).

/// Most breakpoints per block; a full block splits in two, and neighbours that together hold at
/// most half as many merge.
const CAP: usize = 32;

/// The breakpoints of one block, in time order.
struct Leaf {
    times: [f64; CAP],
    /// Free count from each breakpoint on, minus the block's base (between -P and P for P
    /// processors: the free counts and bases are between 0 and P).
    rel: [i32; CAP],
}

/// A block in the time order of the profile.
#[derive(Clone, Copy)]
struct Block {
    /// Smallest and largest of its `rel`.
    lo: i32,
    hi: i32,
    leaf: u32,
    len: u32,
}

pub struct Profile {
    /// Arena of the blocks' breakpoints.
    leaves: Vec<Leaf>,
    spare: Vec<u32>,
    blocks: Vec<Block>,
    /// Per block, apart from `blocks` (contiguous runs that the compiler vectorizes): the time of
    /// its first breakpoint, and its base: the free count just before that breakpoint (the last
    /// total of the block before; for the first block, 0 or the base of a block that `trim`
    /// dropped: its first breakpoint is never removed, so no change reads it).
    firsts: Vec<f64>,
    bases: Vec<i32>,
    /// The block of the last change: the next one is often near (the end of the same window).
    hint: usize,
}

impl Profile {
    /// A profile of `n_procs` processors, all free from `now` on: counts are 32-bit, and a
    /// schedlab platform has at most 2^26 processors.
    pub fn new(n_procs: i64, now: f64) -> Self {
        debug_assert!(n_procs < i32::MAX as i64);
        let n_procs = n_procs as i32;
        let (leaves, spare, blocks) = (Vec::new(), Vec::new(), Vec::new());
        let mut p = Profile { leaves, spare, blocks, firsts: vec![now], bases: vec![0], hint: 0 };
        let leaf = p.new_leaf();
        p.leaves[leaf as usize].times[0] = now;
        p.leaves[leaf as usize].rel[0] = n_procs;
        p.blocks.push(Block { lo: n_procs, hi: n_procs, leaf, len: 1 });
        p
    }

    fn new_leaf(&mut self) -> u32 {
        match self.spare.pop() {
            Some(x) => x,
            None => {
                self.leaves.push(Leaf { times: [0.0; CAP], rel: [0; CAP] });
                (self.leaves.len() - 1) as u32
            }
        }
    }

    /// Time of the first breakpoint.
    fn start(&self) -> f64 {
        self.firsts[0]
    }

    /// The block holding time `t`: the last one whose first breakpoint is at or before `t` (the
    /// first block if none is).
    #[inline]
    fn block_at(&self, t: f64) -> usize {
        self.firsts.iter().map(|&x| (x <= t) as usize).sum::<usize>().saturating_sub(1)
    }

    /// The block holding `t`, looked for from block `hint` (< the number of blocks): a few steps
    /// from there, else [`Self::block_at`].
    #[inline]
    fn locate(&self, hint: usize, t: f64) -> usize {
        let mut j = hint;
        for _ in 0..4 {
            if self.firsts[j] > t {
                if j == 0 {
                    return 0;
                }
                j -= 1;
            } else if j + 1 < self.firsts.len() && self.firsts[j + 1] <= t {
                j += 1;
            } else {
                return j;
            }
        }
        self.block_at(t)
    }

    /// Recompute the first time and the smallest and largest total of block `j`.
    #[inline]
    fn refresh(&mut self, j: usize) {
        let b = &mut self.blocks[j];
        let leaf = &self.leaves[b.leaf as usize];
        self.firsts[j] = leaf.times[0];
        (b.lo, b.hi) = bounds(&leaf.rel[..b.len as usize]);
    }

    /// Split the full block `j` in two halves.
    fn split(&mut self, j: usize) {
        let right = self.new_leaf();
        let b = self.blocks[j];
        let (len, mid) = (b.len as usize, b.len as usize / 2);
        let (l, r) = two(&mut self.leaves, b.leaf as usize, right as usize);
        let shift = l.rel[mid - 1];
        r.times[..len - mid].copy_from_slice(&l.times[mid..len]);
        for (to, &from) in r.rel[..len - mid].iter_mut().zip(&l.rel[mid..len]) {
            *to = from - shift;
        }
        self.blocks[j].len = mid as u32;
        let new = Block { lo: 0, hi: 0, leaf: right, len: (len - mid) as u32 };
        self.blocks.insert(j + 1, new);
        self.bases.insert(j + 1, self.bases[j] + shift);
        self.firsts.insert(j + 1, 0.0);
        self.refresh(j);
        self.refresh(j + 1);
    }

    /// Merge block `j + 1` into block `j`.
    fn merge(&mut self, j: usize) {
        let (a, b) = (self.blocks[j], self.blocks[j + 1]);
        let (la, lb) = (a.len as usize, b.len as usize);
        let (l, r) = two(&mut self.leaves, a.leaf as usize, b.leaf as usize);
        let shift = self.bases[j + 1] - self.bases[j];
        l.times[la..la + lb].copy_from_slice(&r.times[..lb]);
        for (to, &from) in l.rel[la..la + lb].iter_mut().zip(&r.rel[..lb]) {
            *to = from + shift;
        }
        self.blocks[j].len = (la + lb) as u32;
        self.spare.push(b.leaf);
        self.blocks.remove(j + 1);
        self.firsts.remove(j + 1);
        self.bases.remove(j + 1);
        self.refresh(j);
    }

    /// After block `j` lost breakpoints: merge it with a neighbour if both fit in half a block.
    fn rebalance(&mut self, j: usize) {
        let len = |p: &Self, j: usize| p.blocks[j].len as usize;
        if j + 1 < self.blocks.len() && len(self, j) + len(self, j + 1) <= CAP / 2 {
            self.merge(j);
        } else if j > 0 && len(self, j - 1) + len(self, j) <= CAP / 2 {
            self.merge(j - 1);
        }
    }

    /// Forget the past: the profile starts at `now` (>= its first breakpoint).
    pub fn trim(&mut self, now: f64) {
        if now == self.start() {
            return;
        }
        // the last breakpoint at or before now moves to now; the ones before it go
        let j = self.block_at(now);
        for b in self.blocks.drain(..j) {
            self.spare.push(b.leaf);
        }
        self.firsts.drain(..j);
        self.bases.drain(..j);
        self.hint = 0;
        let b = self.blocks[0];
        let leaf = &mut self.leaves[b.leaf as usize];
        let len = b.len as usize;
        let i = leaf.times[..len].partition_point(|&x| x <= now) - 1;
        if i > 0 {
            leaf.times.copy_within(i..len, 0);
            leaf.rel.copy_within(i..len, 0);
            self.blocks[0].len = (len - i) as u32;
        }
        leaf.times[0] = now;
        self.refresh(0);
        if i > 0 {
            self.rebalance(0);
        }
    }

    /// Change the free count by `dv` from `t` on (t >= the first breakpoint); a breakpoint left
    /// without change is removed, unless it is the first.
    fn change(&mut self, t: f64, dv: i64) {
        if dv == 0 {
            return;
        }
        let dv = dv as i32;
        let mut j = self.locate(self.hint, t);
        let mut b = self.blocks[j];
        let mut i = before(&self.leaves[b.leaf as usize].times[..b.len as usize], t);
        let mut removed = false;
        if i < b.len as usize && self.leaves[b.leaf as usize].times[i] == t {
            let len = b.len as usize;
            let leaf = &mut self.leaves[b.leaf as usize];
            for r in &mut leaf.rel[i..len] {
                *r += dv;
            }
            // the change at a block's first breakpoint is its total: the base is the one before
            let delta = if i > 0 { leaf.rel[i] - leaf.rel[i - 1] } else { leaf.rel[0] };
            if delta == 0 && !(i == 0 && j == 0) {
                leaf.times.copy_within(i + 1..len, i);
                leaf.rel.copy_within(i + 1..len, i);
                self.blocks[j].len -= 1;
                removed = true;
            }
        } else {
            // a new breakpoint after the block's first (t is not before it)
            if b.len as usize == CAP {
                self.split(j);
                if i > CAP / 2 {
                    j += 1;
                    i -= CAP / 2;
                }
                b = self.blocks[j];
            }
            let len = b.len as usize;
            let leaf = &mut self.leaves[b.leaf as usize];
            leaf.times.copy_within(i..len, i + 1);
            leaf.rel.copy_within(i..len, i + 1);
            leaf.times[i] = t;
            leaf.rel[i] = leaf.rel[i - 1];
            for r in &mut leaf.rel[i..=len] {
                *r += dv;
            }
            self.blocks[j].len += 1;
        }
        for base in &mut self.bases[j + 1..] {
            *base += dv;
        }
        if self.blocks[j].len == 0 {
            self.spare.push(self.blocks[j].leaf);
            self.blocks.remove(j);
            self.firsts.remove(j);
            self.bases.remove(j);
        } else {
            self.refresh(j);
            if removed {
                self.rebalance(j);
            }
        }
        self.hint = j.min(self.blocks.len() - 1);
    }

    /// Add `delta` free processors over `[start, end)` (negative to reserve).
    pub fn add(&mut self, start: f64, end: f64, delta: i64) {
        self.change(start, delta);
        if end != f64::INFINITY {
            self.change(end, -delta);
        }
    }

    /// Processors free at the first breakpoint (now).
    pub fn free_now(&self) -> i64 {
        let b = &self.blocks[0];
        (self.bases[0] + self.leaves[b.leaf as usize].rel[0]) as i64
    }

    /// The first breakpoint after `from` (at or after it with `inclusive`) where at least `k`
    /// processors are free, and its block; `hint` is a block near `from`'s.
    fn first_fit(&self, from: f64, inclusive: bool, k: i64, hint: usize) -> Option<(f64, usize)> {
        let mut j = self.locate(hint, from);
        let b = &self.blocks[j];
        let times = &self.leaves[b.leaf as usize].times[..b.len as usize];
        let mut i = if inclusive { before(times, from) } else { times.iter().map(|&x| (x <= from) as usize).sum() };
        while let Some(b) = self.blocks.get(j) {
            let need = rel(k - self.bases[j] as i64);
            if b.hi >= need {
                let leaf = &self.leaves[b.leaf as usize];
                if let Some(at) = leaf.rel[i..b.len as usize].iter().position(|&r| r >= need) {
                    return Some((leaf.times[i + at], j));
                }
            }
            (j, i) = (j + 1, 0);
        }
        None
    }

    /// The last breakpoint after the breakpoint `after` (of block `at`) and before `end` where
    /// fewer than `k` processors are free, and its block.
    fn last_block(&self, after: f64, at: usize, end: f64, k: i64) -> Option<(f64, usize)> {
        let mut j = self.locate(at, end);
        let b = &self.blocks[j];
        let mut i = before(&self.leaves[b.leaf as usize].times[..b.len as usize], end);
        loop {
            let b = &self.blocks[j];
            let leaf = &self.leaves[b.leaf as usize];
            // in `after`'s block, only the breakpoints after it
            let lo = if j == at { leaf.times[..i].iter().map(|&x| (x <= after) as usize).sum() } else { 0 };
            let need = rel(k - self.bases[j] as i64);
            if b.lo < need {
                if let Some(x) = leaf.rel[lo..i].iter().rposition(|&r| r < need) {
                    return Some((leaf.times[lo + x], j));
                }
            }
            if j == at {
                return None;
            }
            j -= 1;
            i = self.blocks[j].len as usize;
        }
    }

    /// The first breakpoint where fewer than `k` processors are free, INF if none.
    pub fn first_block(&self, k: i64) -> f64 {
        for (b, &base) in self.blocks.iter().zip(&self.bases) {
            let need = rel(k - base as i64);
            if b.lo < need {
                let leaf = &self.leaves[b.leaf as usize];
                if let Some(at) = leaf.rel[..b.len as usize].iter().position(|&r| r < need) {
                    return leaf.times[at];
                }
            }
        }
        f64::INFINITY
    }

    /// Earliest breakpoint at or after `from` and before `cap` where `procs` processors stay free for
    /// `duration`, from `cap` on every processor counting as free (`cap` = INF: no such bound); INF
    /// if none. The `earliest` of the Python profile with `stop` = the breakpoints before `cap`,
    /// restricted to starts from `from` on. A window blocked by some breakpoints moves past the last
    /// of them: every start up to it would hold that breakpoint too.
    pub fn earliest(&self, procs: i64, duration: f64, cap: f64, from: f64) -> f64 {
        let (mut from, mut inclusive, mut hint) = (from, true, 0);
        loop {
            let Some((t, at)) = self.first_fit(from, inclusive, procs, hint) else {
                return f64::INFINITY;
            };
            if t >= cap {
                return f64::INFINITY;
            }
            let end = (t + duration).min(cap);
            match self.last_block(t, at, end, procs) {
                Some((b, j)) => (from, inclusive, hint) = (b, false, j),
                None => return t,
            }
        }
    }

    /// The breakpoints as (time, free count), in time order (tests).
    #[cfg(test)]
    pub fn breakpoints(&self) -> Vec<(f64, i64)> {
        let mut out = Vec::new();
        for (b, &base) in self.blocks.iter().zip(&self.bases) {
            let leaf = &self.leaves[b.leaf as usize];
            for i in 0..b.len as usize {
                out.push((leaf.times[i], (base + leaf.rel[i]) as i64));
            }
        }
        out
    }
}

/// How many of `times` are before `t`: where `t` goes in them (a count the compiler vectorizes; on
/// a block's few dozen times it beats a binary search, whose steps wait on each other's loads).
#[inline]
fn before(times: &[f64], t: f64) -> usize {
    times.iter().map(|&x| (x < t) as usize).sum()
}

/// The smallest and largest of `rel` (not empty), in lanes of 8 that the compiler vectorizes; the
/// last lane of 8 overlaps the others where the length is not a multiple of 8.
#[inline]
fn bounds(rel: &[i32]) -> (i32, i32) {
    if rel.len() < 8 {
        return rel.iter().fold((i32::MAX, i32::MIN), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    }
    let (mut lo, mut hi) = ([i32::MAX; 8], [i32::MIN; 8]);
    let mut lane = |c: &[i32]| {
        for l in 0..8 {
            lo[l] = lo[l].min(c[l]);
            hi[l] = hi[l].max(c[l]);
        }
    };
    rel.chunks_exact(8).for_each(&mut lane);
    lane(&rel[rel.len() - 8..]);
    (lo.into_iter().fold(i32::MAX, i32::min), hi.into_iter().fold(i32::MIN, i32::max))
}

/// A bound on the totals relative to a base, as a relative total: `rel >= need` and `rel < need`
/// keep their truth (relative totals are strictly between the bounds of i32).
#[inline]
fn rel(need: i64) -> i32 {
    need.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

/// Mutable references to two distinct leaves.
fn two(leaves: &mut [Leaf], a: usize, b: usize) -> (&mut Leaf, &mut Leaf) {
    if a < b {
        let (x, y) = leaves.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = leaves.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}

#[cfg(test)]
mod tests {
    //! The block profile against the list profile of the Python policy, transcribed without its merging
    //! of equal neighbours (answers must not depend on it): same free count
    //! at every time, same earliest start for random queries, after random reservations, releases
    //! and trims.
    use super::Profile;

    struct ListProfile {
        times: Vec<f64>,
        free: Vec<i64>,
    }

    impl ListProfile {
        fn trim(&mut self, now: f64) {
            let i = self.times.partition_point(|&x| x <= now).saturating_sub(1);
            self.times.drain(..i);
            self.free.drain(..i);
            self.times[0] = now;
        }
        fn split(&mut self, t: f64) -> usize {
            let i = self.times.partition_point(|&x| x < t);
            if i == self.times.len() || self.times[i] != t {
                self.times.insert(i, t);
                self.free.insert(i, self.free[i - 1]);
            }
            i
        }
        fn add(&mut self, start: f64, end: f64, delta: i64) {
            let i = self.split(start);
            let j = if end != f64::INFINITY { self.split(end) } else { self.times.len() };
            for f in &mut self.free[i..j] {
                *f += delta;
            }
        }
        fn free_at(&self, t: f64) -> i64 {
            self.free[self.times.partition_point(|&x| x <= t) - 1]
        }
        fn earliest(&self, procs: i64, duration: f64, stop: Option<usize>) -> f64 {
            let (times, free) = (&self.times, &self.free);
            let n = stop.unwrap_or(times.len());
            let mut i = 0;
            while i < n {
                if free[i] < procs {
                    i += 1;
                    continue;
                }
                let end = times[i] + duration;
                let mut j = i + 1;
                let mut blocked = false;
                while j < n && times[j] < end {
                    if free[j] < procs {
                        blocked = true;
                        break;
                    }
                    j += 1;
                }
                if !blocked {
                    return times[i];
                }
                i = j + 1;
            }
            f64::INFINITY
        }
    }

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    #[test]
    fn block_profile_matches_the_list_profile() {
        matches_the_list_profile(0..300, 200, 30, 10);
    }

    /// Long runs with long reservations and rare trims: hundreds of breakpoints, so blocks split
    /// and merge.
    #[test]
    fn block_profile_matches_the_list_profile_over_many_blocks() {
        let most = matches_the_list_profile(1000..1012, 2500, 400, 60);
        assert!(most > 4 * super::CAP, "only {most} breakpoints");
    }

    /// Random reservations, releases and trims (one step in `trims` on average, each reservation
    /// `1..=longest` long) on both profiles, compared after every step; the most breakpoints seen.
    fn matches_the_list_profile(seeds: std::ops::Range<u64>, steps: usize, longest: u64, trims: u64) -> usize {
        let mut most = 0;
        for seed in seeds {
            let mut rng = Rng(seed);
            let n_procs = 1 + rng.below(40) as i64;
            let mut tree = Profile::new(n_procs, 0.0);
            let mut list = ListProfile { times: vec![0.0], free: vec![n_procs] };
            let mut now = 0.0;
            let mut held: Vec<(f64, f64, i64)> = Vec::new(); // reservations that can be released
            for _ in 0..steps {
                match rng.below(trims) {
                    0 => {
                        now += rng.below(4) as f64;
                        tree.trim(now);
                        list.trim(now);
                        held.retain(|&(s, _, _)| s >= now);
                    }
                    1 | 2 if !held.is_empty() => {
                        let (s, e, k) = held.swap_remove(rng.below(held.len() as u64) as usize);
                        tree.add(s, e, k);
                        list.add(s, e, k);
                    }
                    _ => {
                        let k = rng.below(n_procs as u64 + 1) as i64;
                        let d = 1.0 + rng.below(longest) as f64 / if rng.below(2) == 0 { 1.0 } else { 4.0 };
                        let s = tree.earliest(k, d, f64::INFINITY, f64::NEG_INFINITY);
                        assert_eq!(s, list.earliest(k, d, None), "seed {seed}");
                        tree.add(s, s + d, -k);
                        list.add(s, s + d, -k);
                        held.push((s, s + d, k));
                    }
                }
                let got = tree.breakpoints();
                most = most.max(got.len());
                for &t in &list.times {
                    let at = got.partition_point(|&(x, _)| x <= t) - 1;
                    assert_eq!(got[at].1, list.free_at(t), "seed {seed}: free at {t}");
                }
                // queries with a cap (compression) and a lower bound on the start
                for _ in 0..5 {
                    let k = rng.below(n_procs as u64 + 1) as i64;
                    let d = 1.0 + rng.below(30) as f64;
                    let cap = now + rng.below(60) as f64;
                    let stop = list.times.partition_point(|&x| x < cap);
                    let want = if stop == 0 { f64::INFINITY } else { list.earliest(k, d, Some(stop)) };
                    assert_eq!(tree.earliest(k, d, cap, f64::NEG_INFINITY), want, "seed {seed}");
                    // a search told that nothing starts before `from` (the facts of a compression pass)
                    if want != f64::INFINITY {
                        let from = now + (want - now) * rng.below(5) as f64 / 4.0;
                        assert_eq!(tree.earliest(k, d, cap, from), want, "seed {seed}: from {from}");
                    }
                    let block =
                        list.times.iter().zip(&list.free).find(|&(_, &f)| f < k).map_or(f64::INFINITY, |(&t, _)| t);
                    assert_eq!(tree.first_block(k), block, "seed {seed}");
                }
            }
        }
        most
    }
}
