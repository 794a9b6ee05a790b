//! The availability profile of conservative backfilling on processor counts, as
//! `policies/rigid/profile.py`'s `Profile`: `free[i]` processors are free during
//! `[times[i], times[i + 1])`, the last breakpoint extends to infinity, and breakpoints equal to
//! their left neighbour are merged. O(B) per operation for B breakpoints, at compiled speed.

pub struct Profile {
    pub times: Vec<f64>,
    pub free: Vec<i64>,
}

/// Index of the first element of sorted `v` that is >= `t` (Python's `bisect_left`).
#[inline]
pub fn bisect_left(v: &[f64], t: f64) -> usize {
    v.partition_point(|&x| x < t)
}

impl Profile {
    pub fn new(n_procs: i64, now: f64) -> Self {
        Profile { times: vec![now], free: vec![n_procs] }
    }

    /// Forget the past: the profile starts at `now`.
    pub fn trim(&mut self, now: f64) {
        let i = self.times.partition_point(|&x| x <= now).saturating_sub(1);
        if i > 0 {
            self.times.drain(..i);
            self.free.drain(..i);
        }
        self.times[0] = now;
    }

    /// Index of the breakpoint at `t`, inserted if needed (t >= times[0]).
    fn split(&mut self, t: f64) -> usize {
        let i = bisect_left(&self.times, t);
        if i == self.times.len() || self.times[i] != t {
            self.times.insert(i, t);
            self.free.insert(i, self.free[i - 1]);
        }
        i
    }

    fn merge_at(&mut self, i: usize) {
        if 0 < i && i < self.times.len() && self.free[i] == self.free[i - 1] {
            self.times.remove(i);
            self.free.remove(i);
        }
    }

    /// Add `delta` free processors over `[start, end)` (negative to reserve).
    pub fn add(&mut self, start: f64, end: f64, delta: i64) {
        let i = self.split(start);
        let j = if end != f64::INFINITY { self.split(end) } else { self.times.len() };
        for f in &mut self.free[i..j] {
            *f += delta;
        }
        self.merge_at(j);
        self.merge_at(i);
    }

    /// Earliest breakpoint (before index `stop`, all of them if None) where `procs` processors stay
    /// free for `duration`; from `times[stop]` on every processor counts as free. INF if none.
    pub fn earliest(&self, procs: i64, duration: f64, stop: Option<usize>) -> f64 {
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
