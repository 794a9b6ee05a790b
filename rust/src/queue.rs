//! The waiting queue of FCFS/EASY: waiting jobs by rank (their place in the static queue order),
//! with per-subtree minima of processors and requested time.
//!
//! The same queries as the Python `RankQueue` (policies/rigid/queue.py): "the first waiting
//! rank >= s whose job has procs <= small, or procs <= fit and estimate <= deadline", answered
//! by descending only into subtrees whose minima allow a match. Cost O(log n) per update.

pub struct RankQueue {
    size: usize,
    minp: Vec<i64>,
    mine: Vec<f64>,
    pub count: usize,
}

const EMPTY: i64 = i64::MAX;

impl RankQueue {
    /// An empty queue over ranks `0..n`.
    pub fn new(n: usize) -> Self {
        let size = n.max(1).next_power_of_two();
        RankQueue { size, minp: vec![EMPTY; 2 * size], mine: vec![f64::INFINITY; 2 * size], count: 0 }
    }

    /// Smallest processor count among waiting jobs (`i64::MAX` if none).
    pub fn min_procs(&self) -> i64 {
        self.minp[1]
    }

    pub fn push(&mut self, rank: usize, procs: i64, estimate: f64) {
        let x = rank + self.size;
        self.minp[x] = procs;
        self.mine[x] = estimate;
        self.count += 1;
        self.update_up(x >> 1);
    }

    pub fn remove(&mut self, rank: usize) {
        let x = rank + self.size;
        self.minp[x] = EMPTY;
        self.mine[x] = f64::INFINITY;
        self.count -= 1;
        self.update_up(x >> 1);
    }

    /// Recompute the minima from node `x` up to the root, stopping at the first unchanged node.
    fn update_up(&mut self, mut x: usize) {
        while x >= 1 {
            let (l, r) = (2 * x, 2 * x + 1);
            let p = self.minp[l].min(self.minp[r]);
            let e = if self.mine[l] < self.mine[r] { self.mine[l] } else { self.mine[r] };
            if p == self.minp[x] && e == self.mine[x] {
                break;
            }
            self.minp[x] = p;
            self.mine[x] = e;
            x >>= 1;
        }
    }

    #[inline]
    fn matches(&self, x: usize, fit: i64, deadline: f64, small: i64) -> bool {
        let p = self.minp[x];
        p <= fit && (p <= small || self.mine[x] <= deadline)
    }

    /// The first waiting rank (lowest) of all, if any.
    pub fn head(&self) -> Option<usize> {
        if self.count == 0 {
            return None;
        }
        self.first(0, EMPTY - 1, f64::INFINITY, -1)
    }

    /// First waiting rank >= `start` whose job has procs <= `small`, or procs <= `fit` and
    /// estimate <= `deadline`.
    pub fn first(&self, start: usize, fit: i64, deadline: f64, small: i64) -> Option<usize> {
        if start >= self.size {
            return None;
        }
        let fit = fit.min(EMPTY - 1); // empty leaves never match
        let mut x = start + self.size;
        if self.matches(x, fit, deadline, small) {
            return Some(start);
        }
        while x > 1 {
            if x & 1 == 0 && self.matches(x + 1, fit, deadline, small) {
                if let Some(found) = self.descend(x + 1, fit, deadline, small) {
                    return Some(found);
                }
            }
            x >>= 1;
        }
        None
    }

    /// Leftmost matching leaf under node `top` (depth first, pruned by the minima).
    fn descend(&self, top: usize, fit: i64, deadline: f64, small: i64) -> Option<usize> {
        let mut stack = vec![top];
        while let Some(x) = stack.pop() {
            if !self.matches(x, fit, deadline, small) {
                continue;
            }
            if x >= self.size {
                return Some(x - self.size);
            }
            stack.push(2 * x + 1);
            stack.push(2 * x);
        }
        None
    }
}
