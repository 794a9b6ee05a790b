//! FCFS and EASY backfilling of rigid jobs on a plain machine, first-fit allocation: the event loop
//! of `engine/simulator.py` and the policies of `policies/rigid/fcfs.py`, decision for decision.
//!
//! Event semantics (issue 2): at each event time, all completions (by end time, then row), then
//! all submissions (by submit, then id: the caller's `order`), then one scheduling pass. The
//! Python implementations are the oracles this code is tested against, job for job.

use crate::free_set::FreeSet;
use crate::queue::RankQueue;
use crate::running::RunningByEnd;
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
    /// Place of every row in the queue order.
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

/// A completion event, ordered so that the max-heap pops the smallest (end, row) first.
#[derive(PartialEq)]
struct End(f64, u32);

impl Eq for End {}

impl PartialOrd for End {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for End {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

struct Sim<'a> {
    jobs: Jobs<'a>,
    easy: bool,
    free: FreeSet,
    queue: RankQueue,
    running: RunningByEnd,
    row_of_rank: Vec<u32>,
    expected_end: Vec<f64>,
    arrived: Vec<u32>,
    ends: BinaryHeap<End>,
    start: Vec<f64>,
    alloc_at: Vec<u32>,
    alloc_len: Vec<u32>,
    ranges: Vec<(i64, i64)>,
}

/// Simulate strict FCFS (`easy` false) or EASY backfilling on `n_procs` processors.
///
/// The caller checked that every job fits the machine, that `rank` is a permutation of `0..n`
/// and `order` one of the rows.
pub fn simulate(jobs: Jobs, n_procs: i64, easy: bool) -> Result<Outcome, String> {
    let n = jobs.submit.len();
    let mut row_of_rank = vec![0u32; n];
    for (row, &r) in jobs.rank.iter().enumerate() {
        row_of_rank[r as usize] = row as u32;
    }
    let mut sim = Sim {
        jobs,
        easy,
        free: FreeSet::full(n_procs),
        queue: RankQueue::new(n),
        running: RunningByEnd::new(),
        row_of_rank,
        expected_end: vec![0.0; n],
        arrived: Vec::new(),
        ends: BinaryHeap::new(),
        start: vec![f64::NAN; n],
        alloc_at: vec![0; n],
        alloc_len: vec![0; n],
        ranges: Vec::with_capacity(n),
    };
    let mut end = vec![f64::NAN; n];
    let order = sim.jobs.order;
    let submit = sim.jobs.submit;
    let mut i = 0;
    loop {
        let mut t = if i < n { submit[order[i] as usize] } else { f64::INFINITY };
        if let Some(top) = sim.ends.peek() {
            if top.0 < t {
                t = top.0;
            }
        }
        if t == f64::INFINITY {
            break;
        }
        while let Some(top) = sim.ends.peek() {
            if top.0 != t {
                break;
            }
            let row = sim.ends.pop().unwrap().1;
            let r = row as usize;
            end[r] = t;
            let at = sim.alloc_at[r] as usize;
            for &(lo, hi) in &sim.ranges[at..at + sim.alloc_len[r] as usize] {
                sim.free.add(lo, hi);
            }
            if easy {
                sim.running.remove(sim.expected_end[r], row, sim.jobs.procs);
            }
        }
        while i < n && submit[order[i] as usize] == t {
            sim.arrived.push(order[i] as u32);
            i += 1;
        }
        sim.schedule(t)?;
    }
    if let Some(r) = end.iter().position(|e| e.is_nan()) {
        return Err(format!("job row {r} never ended"));
    }
    let mut offsets = Vec::with_capacity(n + 1);
    let mut los = Vec::with_capacity(sim.ranges.len());
    let mut his = Vec::with_capacity(sim.ranges.len());
    offsets.push(0);
    for r in 0..n {
        let at = sim.alloc_at[r] as usize;
        for &(lo, hi) in &sim.ranges[at..at + sim.alloc_len[r] as usize] {
            los.push(lo);
            his.push(hi);
        }
        offsets.push(los.len() as i64);
    }
    Ok(Outcome { start: sim.start, end, offsets, los, his })
}

impl Sim<'_> {
    fn schedule(&mut self, now: f64) -> Result<(), String> {
        if !self.arrived.is_empty() {
            self.enqueue_arrivals(now);
        }
        if self.queue.count == 0 || self.free.size < self.queue.min_procs() {
            return Ok(()); // nothing waiting can start now
        }
        let head = match self.start_heads(now) {
            Some(h) if self.easy => h,
            _ => return Ok(()),
        };
        let mut n_free = self.free.size;
        let mut candidate = match self.queue.first(head + 1, n_free, f64::INFINITY, -1) {
            Some(c) => c,
            None => return Ok(()),
        };
        let procs = self.jobs.procs;
        let need = procs[self.row_of_rank[head] as usize];
        let (shadow, mut extra) = self
            .running
            .reservation(need, n_free, procs)
            .ok_or_else(|| format!("{need} processors never free"))?;
        let limit = shadow - now;
        loop {
            candidate = match self.queue.first(candidate, n_free, limit, n_free.min(extra)) {
                Some(c) => c,
                None => return Ok(()),
            };
            let row = self.start_rank(candidate, now);
            n_free -= procs[row];
            if self.jobs.estimate[row] > limit {
                extra -= procs[row];
            }
            candidate += 1;
        }
    }

    /// Queue the jobs submitted now, in queue order; when nothing waits, those that fit start at once.
    fn enqueue_arrivals(&mut self, now: f64) {
        let mut arrived = std::mem::take(&mut self.arrived);
        let rank = self.jobs.rank;
        arrived.sort_unstable_by_key(|&row| rank[row as usize]);
        let mut i = 0;
        if self.queue.count == 0 {
            while i < arrived.len() && self.jobs.procs[arrived[i] as usize] <= self.free.size {
                self.start_row(arrived[i] as usize, now);
                i += 1;
            }
        }
        for &row in &arrived[i..] {
            let r = row as usize;
            self.queue.push(rank[r] as usize, self.jobs.procs[r], self.jobs.estimate[r]);
        }
        arrived.clear();
        self.arrived = arrived;
    }

    /// Start queue heads while they fit; return the blocked head's rank, if any.
    fn start_heads(&mut self, now: f64) -> Option<usize> {
        loop {
            let head = self.queue.head()?;
            if self.jobs.procs[self.row_of_rank[head] as usize] > self.free.size {
                return Some(head);
            }
            self.start_rank(head, now);
        }
    }

    fn start_rank(&mut self, rank: usize, now: f64) -> usize {
        let row = self.row_of_rank[rank] as usize;
        self.start_row(row, now);
        self.queue.remove(rank);
        row
    }

    /// Start job `row` now on the lowest free ids (it fits by count).
    fn start_row(&mut self, row: usize, now: f64) {
        self.alloc_at[row] = self.ranges.len() as u32;
        self.free.pop_first(self.jobs.procs[row], &mut self.ranges);
        self.alloc_len[row] = self.ranges.len() as u32 - self.alloc_at[row];
        self.start[row] = now;
        self.ends.push(End(now + self.jobs.duration[row], row as u32));
        if self.easy {
            let e = now + self.jobs.estimate[row];
            self.expected_end[row] = e;
            self.running.add(e, row as u32, self.jobs.procs);
        }
    }
}
