//! Conservative backfilling with first-fit allocation: the decisions of
//! `policies/rigid/conservative.py` on processor counts (Mu'alem and Feitelson 2001), the oracle
//! of the tests. Every waiting job holds a reservation in the [`Profile`]; an early end
//! compresses them in queue order, to the earliest start the profile allows (`full`) or only to
//! now (`start-now`).

use crate::engine::{Engine, MinKey, Policy};
use crate::fcfs::row_of_rank;
use crate::profile::{bisect_left, Profile};
use std::collections::{BinaryHeap, HashSet};

pub struct Conservative {
    full: bool,
    profile: Profile,
    row_of_rank: Vec<u32>,
    /// Ranks of waiting jobs holding a reservation, sorted.
    reserved: Vec<usize>,
    /// Reservation start (waiting) or start (running), per row.
    res_start: Vec<f64>,
    /// (reservation start, rank), lazily cleaned.
    starts: BinaryHeap<MinKey>,
    waiting: Vec<bool>,
    ended_early: bool,
    wakeups: HashSet<u64>,
}

impl Conservative {
    pub fn new(full: bool, n_procs: i64, rank: &[i64]) -> Self {
        let n = rank.len();
        Conservative {
            full,
            profile: Profile::new(n_procs, 0.0),
            row_of_rank: row_of_rank(rank),
            reserved: Vec::new(),
            res_start: vec![f64::INFINITY; n],
            starts: BinaryHeap::new(),
            waiting: vec![false; n],
            ended_early: false,
            wakeups: HashSet::new(),
        }
    }

    fn reserve(&mut self, eng: &mut Engine, row: usize, start: f64, now: f64) {
        self.profile.add(start, start + eng.jobs.estimate[row], -eng.jobs.procs[row]);
        let r = eng.jobs.rank[row] as usize;
        if !self.waiting[row] {
            self.waiting[row] = true;
            let at = self.reserved.partition_point(|&x| x < r);
            self.reserved.insert(at, r);
        }
        self.res_start[row] = start;
        self.starts.push(MinKey(start, r as u32));
        if start > now && self.wakeups.insert(start.to_bits()) {
            eng.wake_at(start);
        }
    }

    /// Full compression: each reservation, in queue order, moves to the earliest start before it that
    /// the profile allows. `most[i]`, the largest free count among breakpoints 0..=i, rules most jobs
    /// out at once; it is recomputed after each move.
    fn compress_full(&mut self, eng: &mut Engine, now: f64) {
        let mut most = prefix(&self.profile.free, i64::max);
        let mut idx = 0;
        while idx < self.reserved.len() {
            let row = self.row_of_rank[self.reserved[idx]] as usize;
            idx += 1;
            let old = self.res_start[row];
            if old <= now {
                continue;
            }
            let k = eng.jobs.procs[row];
            let stop = bisect_left(&self.profile.times, old); // >= 1: old > now = times[0]
            if most[stop - 1] < k {
                continue;
            }
            let d = eng.jobs.estimate[row];
            let new = self.profile.earliest(k, d, Some(stop));
            if new < old {
                self.profile.add(old, old + d, k);
                self.reserve(eng, row, new, now);
                most = prefix(&self.profile.free, i64::max);
            }
        }
    }

    /// Start-now compression: in queue order, a job moves to now iff its processors are free over
    /// `[now, min(now + d, old))` (from its own reservation on they are its own), that is iff the
    /// smallest free count of the breakpoints before that bound is at least its size.
    fn compress_now(&mut self, eng: &mut Engine, now: f64) {
        let mut low = prefix(&self.profile.free, i64::min);
        let mut idx = 0;
        while idx < self.reserved.len() {
            let row = self.row_of_rank[self.reserved[idx]] as usize;
            idx += 1;
            let old = self.res_start[row];
            if old <= now {
                continue;
            }
            let (k, d) = (eng.jobs.procs[row], eng.jobs.estimate[row]);
            let inside = bisect_left(&self.profile.times, (now + d).min(old)).max(1);
            if low[inside - 1] >= k {
                self.profile.add(old, old + d, k);
                self.reserve(eng, row, now, now);
                low = prefix(&self.profile.free, i64::min);
            }
        }
    }

    fn start_due(&mut self, eng: &mut Engine, now: f64) -> Result<(), String> {
        let mut due = Vec::new();
        while self.starts.peek().is_some_and(|top| top.0 <= now) {
            let MinKey(start, r) = self.starts.pop().unwrap();
            let row = self.row_of_rank[r as usize] as usize;
            if self.res_start[row] == start && self.waiting[row] {
                self.waiting[row] = false;
                due.push(r as usize);
            }
        }
        due.sort_unstable();
        for r in due {
            let at = self.reserved.partition_point(|&x| x < r);
            self.reserved.remove(at);
            eng.start_first_fit(self.row_of_rank[r] as usize, now)?;
        }
        Ok(())
    }
}

/// Running maximum (or minimum) of `v`.
fn prefix(v: &[i64], pick: fn(i64, i64) -> i64) -> Vec<i64> {
    let mut out = Vec::with_capacity(v.len());
    let mut acc = v[0];
    for &x in v {
        acc = pick(acc, x);
        out.push(acc);
    }
    out
}

impl Policy for Conservative {
    fn complete(&mut self, eng: &mut Engine, rows: &[u32], now: f64) -> Result<(), String> {
        self.profile.trim(now);
        for &row in rows {
            let r = row as usize;
            let expected = self.res_start[r] + eng.jobs.estimate[r];
            if now < expected {
                self.profile.add(now, expected, eng.jobs.procs[r]);
                self.ended_early = true;
            }
        }
        Ok(())
    }

    fn schedule(&mut self, eng: &mut Engine, now: f64) -> Result<(), String> {
        self.profile.trim(now);
        self.wakeups.remove(&now.to_bits());
        if self.ended_early {
            self.ended_early = false;
            if !self.reserved.is_empty() {
                if self.full {
                    self.compress_full(eng, now);
                } else {
                    self.compress_now(eng, now);
                }
            }
        }
        if !eng.arrived.is_empty() {
            let mut new = std::mem::take(&mut eng.arrived);
            let rank = eng.jobs.rank;
            new.sort_unstable_by_key(|&row| rank[row as usize]);
            for &row in &new {
                let r = row as usize;
                let start = self.profile.earliest(eng.jobs.procs[r], eng.jobs.estimate[r], None);
                if start == f64::INFINITY {
                    return Err(format!("conservative: no start for job row {r}"));
                }
                self.reserve(eng, r, start, now);
            }
            new.clear();
            eng.arrived = new;
        }
        self.start_due(eng, now)
    }
}
