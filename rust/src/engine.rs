//! The compiled policies' simulation of rigid jobs with fixed run times: schedlab's one event
//! loop ([`Events`], the one Python policies run on too) with the free processors and the
//! allocations of first fit. Policies act on the [`Engine`] as Python policies act on their
//! `Context`.

use crate::events::Events;
use crate::free_set::FreeSet;

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

/// What a policy sees and does: the jobs, the free processors, starts and timers.
pub struct Engine<'a> {
    pub jobs: Jobs<'a>,
    pub free: FreeSet,
    /// The clock and the job states; `events.arrived` are the rows submitted at this event time,
    /// in (submit, id) order, which the policy takes in its pass.
    pub events: Events,
    alloc_at: Vec<u32>,
    alloc_len: Vec<u32>,
    ranges: Vec<(i64, i64)>,
}

pub trait Policy {
    /// Jobs that ended at `now` (by end time, then row).
    fn complete(&mut self, eng: &mut Engine, rows: &[u32], now: f64) -> Result<(), String>;
    /// One scheduling pass at `now`, after completions and submissions (`eng.events.arrived`).
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
        self.events.launch(row, self.jobs.duration[row]);
        Ok(())
    }

    /// Ask for a scheduling pass at `time` (> now).
    pub fn wake_at(&mut self, time: f64) {
        self.events.wake_at(time);
    }
}

/// Simulate `policy` on `n_procs` processors (the caller checked that every job fits).
pub fn run<P: Policy>(jobs: Jobs, n_procs: i64, policy: &mut P) -> Result<Outcome, String> {
    let n = jobs.submit.len();
    let events = Events::new(jobs.submit, jobs.order);
    let mut eng = Engine {
        jobs,
        free: FreeSet::full(n_procs),
        events,
        alloc_at: vec![0; n],
        alloc_len: vec![0; n],
        ranges: Vec::with_capacity(n),
    };
    let mut done: Vec<u32> = Vec::new();
    while eng.events.advance() {
        let t = eng.events.now;
        std::mem::swap(&mut done, &mut eng.events.done);
        for &row in &done {
            let at = eng.alloc_at[row as usize] as usize;
            for k in at..at + eng.alloc_len[row as usize] as usize {
                let (lo, hi) = eng.ranges[k];
                eng.free.add(lo, hi);
            }
        }
        if !done.is_empty() {
            policy.complete(&mut eng, &done, t)?;
        }
        eng.events.release();
        policy.schedule(&mut eng, t)?;
    }
    let Events { start, end, .. } = eng.events;
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
    Ok(Outcome { start, end, offsets, los, his })
}
