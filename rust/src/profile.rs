//! The availability profile of conservative backfilling on processor counts, as
//! `policies/rigid/profile.py`'s `Profile`: from each breakpoint on, until the next one, a number
//! of processors is free; the last breakpoint extends to infinity.
//!
//! Unlike the Python list, the breakpoints live in a treap (a balanced search tree by time) that
//! stores each breakpoint's *change* of the free count, and per subtree the sum of the changes and
//! the smallest and largest running total: a reservation is two O(log B) point updates for B
//! breakpoints, and "the first breakpoint from t on where k processors are free" or "the last one
//! before t where fewer are" are O(log B) descents. [`Profile::earliest`] answers Algorithm 1's
//! question with them, jumping past the last blocking breakpoint of a failed window. Breakpoints
//! whose change drops to zero are removed where they are touched; the answers never depend on
//! which breakpoints with a zero change remain (an earliest start is always a breakpoint where the
//! free count changes, or the first one).

const NIL: u32 = 0;
/// Stands for "no running total" in an empty subtree; far from any sum of processor counts.
const BIG: i64 = 1 << 60;

#[derive(Clone, Copy)]
struct Node {
    time: f64,
    /// Change of the free count at `time` (the first breakpoint: the free count itself).
    delta: i64,
    /// Sum of the changes in the subtree, and the smallest and largest running total over its
    /// breakpoints in time order (running totals from the subtree's first breakpoint on).
    sum: i64,
    lo: i64,
    hi: i64,
    left: u32,
    right: u32,
    prio: u32,
}

const EMPTY: Node = Node { time: 0.0, delta: 0, sum: 0, lo: BIG, hi: -BIG, left: NIL, right: NIL, prio: 0 };

pub struct Profile {
    /// Arena of nodes; index 0 is the empty subtree.
    nodes: Vec<Node>,
    spare: Vec<u32>,
    root: u32,
    /// Time of the first breakpoint.
    start: f64,
    seed: u64,
}

impl Profile {
    pub fn new(n_procs: i64, now: f64) -> Self {
        let mut p =
            Profile { nodes: vec![EMPTY], spare: Vec::new(), root: NIL, start: now, seed: 0x9E37_79B9_7F4A_7C15 };
        p.root = p.node(now, n_procs);
        p
    }

    fn node(&mut self, time: f64, delta: i64) -> u32 {
        // xorshift64: the treap's priorities (fixed seed: runs are reproducible)
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        let n = Node { time, delta, sum: delta, lo: delta, hi: delta, left: NIL, right: NIL, prio: self.seed as u32 };
        match self.spare.pop() {
            Some(x) => {
                self.nodes[x as usize] = n;
                x
            }
            None => {
                self.nodes.push(n);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    #[inline]
    fn pull(&mut self, x: u32) {
        let n = self.nodes[x as usize];
        let (l, r) = (&self.nodes[n.left as usize], &self.nodes[n.right as usize]);
        let s = l.sum + n.delta;
        let (sum, lo, hi) = (s + r.sum, l.lo.min(s).min(s + r.lo), l.hi.max(s).max(s + r.hi));
        let m = &mut self.nodes[x as usize];
        (m.sum, m.lo, m.hi) = (sum, lo, hi);
    }

    /// Split subtree `x` into the breakpoints before `t` (at or before it with `inclusive`) and the rest.
    fn split(&mut self, x: u32, t: f64, inclusive: bool) -> (u32, u32) {
        if x == NIL {
            return (NIL, NIL);
        }
        let time = self.nodes[x as usize].time;
        if time < t || (inclusive && time == t) {
            let (a, b) = self.split(self.nodes[x as usize].right, t, inclusive);
            self.nodes[x as usize].right = a;
            self.pull(x);
            (x, b)
        } else {
            let (a, b) = self.split(self.nodes[x as usize].left, t, inclusive);
            self.nodes[x as usize].left = b;
            self.pull(x);
            (a, x)
        }
    }

    /// Join subtrees `a` and `b`, every breakpoint of `a` before every one of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].prio > self.nodes[b as usize].prio {
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    /// Return the nodes of subtree `x` to the arena.
    fn recycle(&mut self, x: u32) {
        let mut stack = vec![x];
        while let Some(y) = stack.pop() {
            if y != NIL {
                let n = self.nodes[y as usize];
                stack.push(n.left);
                stack.push(n.right);
                self.spare.push(y);
            }
        }
    }

    /// Forget the past: the profile starts at `now` (>= its first breakpoint).
    pub fn trim(&mut self, now: f64) {
        if now == self.start {
            return;
        }
        // the first breakpoint moves to now in place unless a later one is due
        let mut x = self.root;
        let mut parent = NIL;
        while self.nodes[x as usize].left != NIL {
            parent = x;
            x = self.nodes[x as usize].left;
        }
        let mut next = self.nodes[x as usize].right;
        if next == NIL {
            next = parent;
        } else {
            while self.nodes[next as usize].left != NIL {
                next = self.nodes[next as usize].left;
            }
        }
        if next == NIL || self.nodes[next as usize].time > now {
            self.nodes[x as usize].time = now;
        } else {
            let (past, rest) = self.split(self.root, now, true);
            let free = self.nodes[past as usize].sum;
            self.recycle(past);
            let first = self.node(now, free);
            self.root = self.merge(first, rest);
        }
        self.start = now;
    }

    /// Change the free count by `dv` from `t` on (t >= the first breakpoint); a breakpoint left
    /// without change is removed, unless it is the first.
    fn change(&mut self, t: f64, dv: i64) {
        if dv != 0 {
            self.root = self.change_in(self.root, t, dv);
        }
    }

    /// [`Self::change`] in subtree `x`; its new root. A new breakpoint goes in as a leaf and rises
    /// by rotations while its priority beats its parent's.
    fn change_in(&mut self, x: u32, t: f64, dv: i64) -> u32 {
        if x == NIL {
            return self.node(t, dv);
        }
        let n = self.nodes[x as usize];
        if t == n.time {
            let delta = n.delta + dv;
            if delta == 0 && t != self.start {
                self.spare.push(x);
                return self.merge(n.left, n.right);
            }
            self.nodes[x as usize].delta = delta;
        } else if t < n.time {
            let l = self.change_in(n.left, t, dv);
            self.nodes[x as usize].left = l;
            if self.nodes[l as usize].prio > n.prio {
                // rotate right: l becomes the root of this subtree
                self.nodes[x as usize].left = self.nodes[l as usize].right;
                self.pull(x);
                self.nodes[l as usize].right = x;
                self.pull(l);
                return l;
            }
        } else {
            let r = self.change_in(n.right, t, dv);
            self.nodes[x as usize].right = r;
            if self.nodes[r as usize].prio > n.prio {
                self.nodes[x as usize].right = self.nodes[r as usize].left;
                self.pull(x);
                self.nodes[r as usize].left = x;
                self.pull(r);
                return r;
            }
        }
        self.pull(x);
        x
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
        let mut x = self.root;
        while self.nodes[x as usize].left != NIL {
            x = self.nodes[x as usize].left;
        }
        self.nodes[x as usize].delta
    }

    /// The first breakpoint after `from` (at or after it with `inclusive`) where at least `k`
    /// processors are free.
    fn first_fit(&self, x: u32, off: i64, from: f64, inclusive: bool, k: i64) -> Option<f64> {
        let n = &self.nodes[x as usize];
        if x == NIL || off + n.hi < k {
            return None;
        }
        let s = off + self.nodes[n.left as usize].sum + n.delta;
        if n.time < from || (!inclusive && n.time == from) {
            return self.first_fit(n.right, s, from, inclusive, k);
        }
        if let Some(t) = self.first_fit(n.left, off, from, inclusive, k) {
            return Some(t);
        }
        if s >= k {
            return Some(n.time);
        }
        self.first_fit(n.right, s, from, inclusive, k)
    }

    /// The last breakpoint before `end` where fewer than `k` processors are free.
    fn last_block(&self, x: u32, off: i64, end: f64, k: i64) -> Option<f64> {
        let n = &self.nodes[x as usize];
        if x == NIL || off + n.lo >= k {
            return None;
        }
        if n.time >= end {
            return self.last_block(n.left, off, end, k);
        }
        let s = off + self.nodes[n.left as usize].sum + n.delta;
        if let Some(t) = self.last_block(n.right, s, end, k) {
            return Some(t);
        }
        if s < k {
            return Some(n.time);
        }
        self.last_block(n.left, off, end, k)
    }

    /// The first breakpoint where fewer than `k` processors are free, INF if none.
    pub fn first_block(&self, k: i64) -> f64 {
        let (mut x, mut off) = (self.root, 0);
        loop {
            let n = &self.nodes[x as usize];
            if x == NIL || off + n.lo >= k {
                return f64::INFINITY;
            }
            let left = &self.nodes[n.left as usize];
            if off + left.lo < k {
                x = n.left;
                continue;
            }
            off += left.sum + n.delta;
            if off < k {
                return n.time;
            }
            x = n.right;
        }
    }

    /// Earliest breakpoint at or after `from` and before `cap` where `procs` processors stay free for
    /// `duration`, from `cap` on every processor counting as free (`cap` = INF: no such bound); INF
    /// if none. The `earliest` of the Python profile with `stop` = the breakpoints before `cap`,
    /// restricted to starts from `from` on. A window blocked by some breakpoints moves past the last
    /// of them: every start up to it would hold that breakpoint too.
    pub fn earliest(&self, procs: i64, duration: f64, cap: f64, from: f64) -> f64 {
        let (mut from, mut inclusive) = (from, true);
        loop {
            let Some(t) = self.first_fit(self.root, 0, from, inclusive, procs) else {
                return f64::INFINITY;
            };
            if t >= cap {
                return f64::INFINITY;
            }
            let end = (t + duration).min(cap);
            match self.last_block(self.root, 0, end, procs) {
                Some(b) if b > t => (from, inclusive) = (b, false),
                _ => return t,
            }
        }
    }

    /// The breakpoints as (time, free count), in time order (tests).
    #[cfg(test)]
    pub fn breakpoints(&self) -> Vec<(f64, i64)> {
        let mut out = Vec::new();
        let mut stack = Vec::new();
        let mut x = self.root;
        let mut free = 0;
        while x != NIL || !stack.is_empty() {
            while x != NIL {
                stack.push(x);
                x = self.nodes[x as usize].left;
            }
            let y = stack.pop().unwrap();
            free += self.nodes[y as usize].delta;
            out.push((self.nodes[y as usize].time, free));
            x = self.nodes[y as usize].right;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    //! The tree profile against the list profile of the Python policy, transcribed without its merging
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
    fn tree_profile_matches_the_list_profile() {
        for seed in 0..300u64 {
            let mut rng = Rng(seed);
            let n_procs = 1 + rng.below(40) as i64;
            let mut tree = Profile::new(n_procs, 0.0);
            let mut list = ListProfile { times: vec![0.0], free: vec![n_procs] };
            let mut now = 0.0;
            let mut held: Vec<(f64, f64, i64)> = Vec::new(); // reservations that can be released
            for _ in 0..200 {
                match rng.below(10) {
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
                        let d = 1.0 + rng.below(30) as f64 / if rng.below(2) == 0 { 1.0 } else { 4.0 };
                        let s = tree.earliest(k, d, f64::INFINITY, f64::NEG_INFINITY);
                        assert_eq!(s, list.earliest(k, d, None), "seed {seed}");
                        tree.add(s, s + d, -k);
                        list.add(s, s + d, -k);
                        held.push((s, s + d, k));
                    }
                }
                for &t in &list.times {
                    let got = tree.breakpoints();
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
    }
}
