//! schedlab's one event loop: the clock, the job states and the events of every simulation, for
//! the compiled policies ([`crate::engine::run`]) and, through [`crate::stepper`], for every
//! Python policy (`engine/simulator.py` iterates it).
//!
//! Event semantics (comparable with Batsim/batsched): at each event time, first all completions,
//! then all submissions, then exactly one scheduling pass; timers (`wake_at`) add passes. Equal
//! times are never broken by chance: completions go by (end time, row), submissions by (submit,
//! id), the caller's `order`. A job stopped while running (aborted or preempted) gets a new
//! attempt number: the end its old run had scheduled is skipped when it comes up.
//!
//! The free processors and the allocations are not here: the caller owns them (a [`FreeSet`] for
//! the compiled policies, the Python `IntervalSet` that Python policies read) and gives back the
//! allocations of the rows [`Events::advance`] reports done.
//!
//! Cost: O(log n) per start, end and timer, for n jobs.
//!
//! [`FreeSet`]: crate::free_set::FreeSet

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Job states, as `engine/simulator.py` names them.
pub const WAITING: u8 = 0;
pub const QUEUED: u8 = 1;
pub const RUNNING: u8 = 2;
pub const DONE: u8 = 3;
pub const REJECTED: u8 = 4;

/// A heap entry ordered so that the max-heap pops the smallest (time, key) first; times compare as
/// Python floats do (-0.0 equals 0.0, and the key decides), as in the Python oracles' `heapq`.
#[derive(PartialEq)]
pub struct MinKey(pub f64, pub u64);

impl Eq for MinKey {}

impl PartialOrd for MinKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for MinKey {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.partial_cmp(&self.0).unwrap_or(Ordering::Equal).then(other.1.cmp(&self.1))
    }
}

/// The state machine of one simulation.
pub struct Events {
    /// Submit times in submission order, and the rows in that order.
    sub_times: Vec<f64>,
    order: Vec<u32>,
    next_sub: usize,
    /// The current event time (-inf before the first).
    pub now: f64,
    /// Per row: one of [`WAITING`], [`QUEUED`], [`RUNNING`], [`DONE`], [`REJECTED`].
    pub state: Vec<u8>,
    attempt: Vec<u32>,
    /// Whether a run was ever stopped: until then every end in the heap is live, and the loop
    /// skips reading the states and attempts of the rows that end (a cache miss each on big traces).
    stopped: bool,
    /// Per row: when its current run started (NaN when not running or never started), when it ended.
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    /// (end time, row and attempt as `row << 32 | attempt`) of every run started, stale ones included:
    /// popped by end time, then row.
    ends: BinaryHeap<MinKey>,
    timers: BinaryHeap<MinKey>,
    /// Rows that ended at `now`, by (end, row).
    pub done: Vec<u32>,
    /// Rows submitted at `now`, in submission order: still [`WAITING`] until [`Events::release`].
    pub arrived: Vec<u32>,
}

impl Events {
    /// A simulation of the jobs whose submit times are `submit` (per row), submitted in the order of
    /// the rows `order` (by submit time, then id; the caller checked it is a permutation).
    pub fn new(submit: &[f64], order: &[i64]) -> Self {
        let n = submit.len();
        Events {
            sub_times: order.iter().map(|&r| submit[r as usize]).collect(),
            order: order.iter().map(|&r| r as u32).collect(),
            next_sub: 0,
            now: f64::NEG_INFINITY,
            state: vec![WAITING; n],
            attempt: vec![0; n],
            stopped: false,
            start: vec![f64::NAN; n],
            end: vec![f64::NAN; n],
            ends: BinaryHeap::new(),
            timers: BinaryHeap::new(),
            done: Vec::new(),
            arrived: Vec::new(),
        }
    }

    /// Go to the next event time, if any (false when no submission, end or timer is left): end the
    /// runs that end then ([`Events::done`]; ends of runs stopped since are skipped), collect the
    /// jobs submitted then ([`Events::arrived`]) and drop the timers due. The caller then gives back
    /// the done rows' processors, tells its policy, [`Events::release`]s the arrivals, tells its
    /// policy again and runs one scheduling pass.
    pub fn advance(&mut self) -> bool {
        self.done.clear();
        self.arrived.clear();
        let mut t = self.sub_times.get(self.next_sub).copied().unwrap_or(f64::INFINITY);
        if let Some(top) = self.ends.peek() {
            if top.0 < t {
                t = top.0;
            }
        }
        if let Some(top) = self.timers.peek() {
            if top.0 < t {
                t = top.0;
            }
        }
        if t == f64::INFINITY {
            return false;
        }
        self.now = t;
        while self.ends.peek().is_some_and(|top| top.0 == t) {
            let key = self.ends.pop().unwrap().1;
            let (row, attempt) = ((key >> 32) as u32, key as u32);
            let r = row as usize;
            if self.stopped && (attempt != self.attempt[r] || self.state[r] != RUNNING) {
                continue; // stopped since
            }
            self.state[r] = DONE;
            self.end[r] = t;
            self.done.push(row);
        }
        while self.next_sub < self.sub_times.len() && self.sub_times[self.next_sub] == t {
            self.arrived.push(self.order[self.next_sub]);
            self.next_sub += 1;
        }
        while self.timers.peek().is_some_and(|top| top.0 <= t) {
            self.timers.pop();
        }
        true
    }

    /// The jobs submitted now wait in the queue: after the policy heard of the completions.
    pub fn release(&mut self) {
        for &row in &self.arrived {
            self.state[row as usize] = QUEUED;
        }
    }

    /// Start queued job `row` now, to end `duration` later (the caller checked it is queued).
    #[inline]
    pub fn launch(&mut self, row: usize, duration: f64) {
        self.state[row] = RUNNING;
        self.start[row] = self.now;
        self.ends.push(MinKey(self.now + duration, (row as u64) << 32 | self.attempt[row] as u64));
    }

    /// Stop running job `row` now (the caller checked it runs): it waits again, and the end its run
    /// had scheduled is void. Returns when that run started.
    pub fn stop(&mut self, row: usize) -> f64 {
        let started = self.start[row];
        self.stopped = true;
        self.state[row] = QUEUED;
        self.attempt[row] += 1;
        self.start[row] = f64::NAN;
        started
    }

    /// Ask for a scheduling pass at `time` (the caller checked it is after now).
    pub fn wake_at(&mut self, time: f64) {
        self.timers.push(MinKey(time, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event: (time, done rows, arrived rows), releasing the arrivals.
    fn next(ev: &mut Events) -> Option<(f64, Vec<u32>, Vec<u32>)> {
        if !ev.advance() {
            return None;
        }
        let out = (ev.now, ev.done.clone(), ev.arrived.clone());
        ev.release();
        Some(out)
    }

    #[test]
    fn completions_by_end_then_row_then_submissions_in_order() {
        // rows 0..4 submitted at 0, 0, 5, 5 in the order 1, 0, 3, 2
        let mut ev = Events::new(&[0.0, 0.0, 5.0, 5.0], &[1, 0, 3, 2]);
        assert_eq!(next(&mut ev), Some((0.0, vec![], vec![1, 0])));
        assert_eq!(ev.state[0], QUEUED);
        ev.launch(1, 5.0);
        ev.launch(0, 5.0);
        assert_eq!(next(&mut ev), Some((5.0, vec![0, 1], vec![3, 2])));
        assert_eq!((ev.start[1], ev.end[1], ev.state[1]), (0.0, 5.0, DONE));
        ev.launch(2, 0.0); // ends at this very time: one more event at 5
        assert_eq!(next(&mut ev), Some((5.0, vec![2], vec![])));
        assert_eq!(ev.state[3], QUEUED);
        ev.state[3] = REJECTED;
        assert_eq!(next(&mut ev), None);
    }

    #[test]
    fn a_stopped_run_never_ends_and_its_end_still_makes_an_event() {
        let mut ev = Events::new(&[0.0], &[0]);
        next(&mut ev);
        ev.launch(0, 10.0);
        ev.wake_at(4.0);
        assert_eq!(next(&mut ev), Some((4.0, vec![], vec![])));
        assert_eq!(ev.stop(0), 0.0);
        assert!(ev.start[0].is_nan());
        ev.launch(0, 10.0); // second attempt, ends at 14
        assert_eq!(next(&mut ev), Some((10.0, vec![], vec![]))); // the first attempt's end: skipped
        assert_eq!(ev.state[0], RUNNING);
        assert_eq!(next(&mut ev), Some((14.0, vec![0], vec![])));
        assert_eq!((ev.start[0], ev.end[0]), (4.0, 14.0));
        assert_eq!(next(&mut ev), None);
    }

    #[test]
    fn timers_due_are_dropped_together() {
        let mut ev = Events::new(&[1.0], &[0]);
        ev.wake_at(3.0);
        ev.wake_at(3.0);
        ev.wake_at(1.0);
        assert_eq!(next(&mut ev), Some((1.0, vec![], vec![0])));
        ev.state[0] = REJECTED;
        assert_eq!(next(&mut ev), Some((3.0, vec![], vec![])));
        assert_eq!(next(&mut ev), None);
    }
}
