//! The event loop of `engine/simulator.py` for rigid jobs with fixed run times: at each event
//! time, all completions (by end time, then row), then all submissions (by submit, then id: the
//! caller's `order`), then one scheduling pass; timers (`wake_at`) add passes. Policies act on
//! the [`Engine`] as Python policies act on their `Context`.

use crate::free_set::FreeSet;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The columns the simulation reads, row-aligned with the job table.
pub struct Jobs<'a> {
    pub submit: &'a [f64],
    pub procs: &'a [i64],
    /// Requested time (walltime): what the policy knows of a job's length.
    pub estimate: &'a [f64],
    /// min(run time, requested time): how long a job runs once started.
    pub duration: &'a [f64],
    /// Place of every row in the queue order (a permutation of the rows).
    pub rank: &'a [i64],
    /// Rows by (submit, id): the submission order.
    pub order: &'a [i64],
}

/// When and where every job ran: start and end per row, allocations as ranges `offsets[r]..offsets[r+1]`.
pub struct Outcome {
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    pub offsets: Vec<i64>,
    pub los: Vec<i64>,
    pub his: Vec<i64>,
}

/// A heap entry ordered so that the max-heap pops the smallest (time, key) first.
#[derive(PartialEq)]
pub struct MinKey(pub f64, pub u32);

impl Eq for MinKey {}

impl PartialOrd for MinKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for MinKey {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

/// What a policy sees and does: the jobs, the free processors, starts and timers.
pub struct Engine<'a> {
    pub jobs: Jobs<'a>,
    pub free: FreeSet,
    /// Rows submitted at this event time, in (submit, id) order, not yet taken by the policy.
    pub arrived: Vec<u32>,
    ends: BinaryHeap<MinKey>,
    timers: BinaryHeap<MinKey>,
    start: Vec<f64>,
    alloc_at: Vec<u32>,
    alloc_len: Vec<u32>,
    ranges: Vec<(i64, i64)>,
}

pub trait Policy {
    /// Jobs that ended at `now` (by end time, then row).
    fn complete(&mut self, eng: &mut Engine, rows: &[u32], now: f64) -> Result<(), String>;
    /// One scheduling pass at `now`, after completions and submissions (`eng.arrived`).
    fn schedule(&mut self, eng: &mut Engine, now: f64) -> Result<(), String>;
}

impl Engine<'_> {
    /// Start job `row` now on the lowest free ids.
    pub fn start_first_fit(&mut self, row: usize, now: f64) -> Result<(), String> {
        let k = self.jobs.procs[row];
        if k > self.free.size {
            return Err(format!("job row {row} needs {k} processors at time {now}, {} free", self.free.size));
        }
        self.alloc_at[row] = self.ranges.len() as u32;
        self.free.pop_first(k, &mut self.ranges);
        self.alloc_len[row] = self.ranges.len() as u32 - self.alloc_at[row];
        self.start[row] = now;
        self.ends.push(MinKey(now + self.jobs.duration[row], row as u32));
        Ok(())
    }

    /// Ask for a scheduling pass at `time` (> now).
    pub fn wake_at(&mut self, time: f64) {
        self.timers.push(MinKey(time, 0));
    }
}

/// Simulate `policy` on `n_procs` processors (the caller checked that every job fits).
pub fn run<P: Policy>(jobs: Jobs, n_procs: i64, policy: &mut P) -> Result<Outcome, String> {
    let n = jobs.submit.len();
    let mut eng = Engine {
        jobs,
        free: FreeSet::full(n_procs),
        arrived: Vec::new(),
        ends: BinaryHeap::new(),
        timers: BinaryHeap::new(),
        start: vec![f64::NAN; n],
        alloc_at: vec![0; n],
        alloc_len: vec![0; n],
        ranges: Vec::with_capacity(n),
    };
    let mut end = vec![f64::NAN; n];
    let order = eng.jobs.order;
    let submit = eng.jobs.submit;
    let mut done: Vec<u32> = Vec::new();
    let mut i = 0;
    loop {
        let mut t = if i < n { submit[order[i] as usize] } else { f64::INFINITY };
        if let Some(top) = eng.ends.peek() {
            t = t.min(top.0);
        }
        if let Some(top) = eng.timers.peek() {
            t = t.min(top.0);
        }
        if t == f64::INFINITY {
            break;
        }
        done.clear();
        while let Some(top) = eng.ends.peek() {
            if top.0 != t {
                break;
            }
            let row = eng.ends.pop().unwrap().1;
            let r = row as usize;
            end[r] = t;
            let at = eng.alloc_at[r] as usize;
            for k in at..at + eng.alloc_len[r] as usize {
                let (lo, hi) = eng.ranges[k];
                eng.free.add(lo, hi);
            }
            done.push(row);
        }
        if !done.is_empty() {
            policy.complete(&mut eng, &done, t)?;
        }
        while i < n && submit[order[i] as usize] == t {
            eng.arrived.push(order[i] as u32);
            i += 1;
        }
        while eng.timers.peek().is_some_and(|top| top.0 <= t) {
            eng.timers.pop();
        }
        policy.schedule(&mut eng, t)?;
    }
    if let Some(r) = end.iter().position(|e| e.is_nan()) {
        return Err(format!("job row {r} never started or never ended"));
    }
    let mut offsets = Vec::with_capacity(n + 1);
    let mut los = Vec::with_capacity(eng.ranges.len());
    let mut his = Vec::with_capacity(eng.ranges.len());
    offsets.push(0);
    for r in 0..n {
        let at = eng.alloc_at[r] as usize;
        for &(lo, hi) in &eng.ranges[at..at + eng.alloc_len[r] as usize] {
            los.push(lo);
            his.push(hi);
        }
        offsets.push(los.len() as i64);
    }
    Ok(Outcome { start: eng.start, end, offsets, los, his })
}
