//! Conservative backfilling with first-fit allocation: the decisions of
//! `policies/rigid/conservative.py` on processor counts (Mu'alem and Feitelson 2001), the oracle
//! of the tests. Every waiting job holds a reservation in the [`Profile`]; an early end
//! compresses them in queue order, to the earliest start the profile allows (`full`) or only to
//! now (`start-now`).

use crate::engine::{Engine, Policy};
use crate::events::MinKey;
use crate::fcfs::row_of_rank;
use crate::profile::Profile;
use std::collections::{BinaryHeap, HashMap};
use std::hash::Hash;

/// What a full-compression pass learnt for one (size, estimate): no start before `x` fits a job
/// whose reservation starts at `cap` or later, until a window is given back before `x`; the pass
/// had given back `given` windows when it learnt it.
#[derive(Clone, Copy)]
struct Fact {
    /// The pass that learnt it (older ones are void).
    pass: u64,
    x: f64,
    cap: f64,
    given: usize,
}

/// A waiting job and its reservation, as the compressions read them.
#[derive(Clone, Copy)]
struct Waiting {
    rank: u32,
    row: u32,
    kind: u32,
    procs: i64,
    estimate: f64,
    start: f64,
}

pub struct Conservative {
    full: bool,
    profile: Profile,
    row_of_rank: Vec<u32>,
    /// Waiting jobs holding a reservation, in queue order (by rank).
    reserved: Vec<Waiting>,
    /// Reservation start (waiting) or start (running), per row.
    res_start: Vec<f64>,
    /// (reservation start, rank), lazily cleaned: `stale` entries are of moved reservations, and the
    /// heap is rebuilt from `reserved` when they outnumber the live ones.
    starts: BinaryHeap<MinKey>,
    stale: usize,
    waiting: Vec<bool>,
    ended_early: bool,
    /// The earliest time a pass was asked for (a timer of the engine), INF when it is past: every
    /// reservation start has a pass at or before it.
    next_wake: f64,
    /// Per row, the job's kind: the same for the jobs of equal size and estimate.
    kind: Vec<u32>,
    /// Full compression's facts, per kind, and the number of the current pass.
    facts: Vec<Fact>,
    pass: u64,
    /// The windows the current pass gave back, as (how many before, start): the suffix minima of
    /// their starts, increasing (the earliest start given back since any point of the pass).
    given_back: Vec<(usize, f64)>,
    /// Per row, the index of the job's size among the distinct sizes.
    size: Vec<u32>,
    /// Start-now compression's first blocking breakpoint per size, with the epoch (pass and move)
    /// it was looked up in.
    first_block: Vec<(u64, f64)>,
    epoch: u64,
}

impl Conservative {
    pub fn new(full: bool, n_procs: i64, rank: &[i64], procs: &[i64], estimate: &[f64]) -> Self {
        let n = rank.len();
        let (kind, kinds) = dense(procs.iter().zip(estimate).map(|(&k, &d)| (k, d.to_bits())));
        let (size, sizes) = dense(procs.iter().copied());
        let void = Fact { pass: 0, x: 0.0, cap: 0.0, given: 0 };
        Conservative {
            full,
            profile: Profile::new(n_procs, 0.0),
            row_of_rank: row_of_rank(rank),
            reserved: Vec::new(),
            res_start: vec![f64::INFINITY; n],
            starts: BinaryHeap::new(),
            stale: 0,
            waiting: vec![false; n],
            ended_early: false,
            next_wake: f64::INFINITY,
            facts: vec![void; kinds],
            kind,
            pass: 0,
            given_back: Vec::new(),
            first_block: vec![(0, 0.0); sizes],
            size,
            epoch: 0,
        }
    }

    /// Reserve `[start, start + estimate)` for the newly submitted job `row`.
    fn place(&mut self, eng: &Engine, row: usize, start: f64) {
        let (procs, estimate) = (eng.jobs.procs[row], eng.jobs.estimate[row]);
        self.profile.add(start, start + estimate, -procs);
        let rank = eng.jobs.rank[row] as u32;
        let at = self.reserved.partition_point(|w| w.rank < rank);
        let kind = self.kind[row];
        self.reserved.insert(at, Waiting { rank, row: row as u32, kind, procs, estimate, start });
        self.waiting[row] = true;
        self.res_start[row] = start;
        self.starts.push(MinKey(start, rank as u64));
    }

    /// Move the reservation of `self.reserved[idx]` to `start` (earlier).
    fn move_to(&mut self, idx: usize, start: f64) {
        let w = &mut self.reserved[idx];
        let (old, procs, estimate) = (w.start, w.procs, w.estimate);
        w.start = start;
        let (rank, row) = (w.rank, w.row as usize);
        self.profile.add(old, old + estimate, procs);
        self.profile.add(start, start + estimate, -procs);
        self.res_start[row] = start;
        self.starts.push(MinKey(start, rank as u64));
        self.stale += 1;
        if self.stale > self.reserved.len() + 64 {
            self.starts = self.reserved.iter().map(|w| MinKey(w.start, w.rank as u64)).collect();
            self.stale = 0;
        }
    }

    /// Full compression: each reservation, in queue order, moves to the earliest start before it that
    /// the profile allows ([`Profile::earliest`] capped at its start).
    ///
    /// Jobs of the same size and estimate share what a pass learnt (`facts`): once one of them, with
    /// reservation start `cap`, found no start before `x` (where it moved, else `cap`), no start
    /// before `x` fits any later one whose reservation starts at `cap` or after (its windows hold the
    /// first one's), so its search begins at `x`, or it stays put when `x` is its own start. Every
    /// start before `x` was ruled out by a breakpoint before `x` (from `x` on, up to `cap`, the
    /// processors were free), and during a pass the profile only loses free processors, except where
    /// a moved reservation gives its old window back: a fact holds until a window is given back
    /// before its `x`.
    fn compress_full(&mut self, now: f64) {
        self.pass += 1;
        self.given_back.clear();
        let mut given = 0;
        let mut idx = 0;
        while idx < self.reserved.len() {
            let Waiting { kind, procs: k, estimate: d, start: old, .. } = self.reserved[idx];
            idx += 1;
            if old <= now {
                continue;
            }
            let kind = kind as usize;
            let fact = self.facts[kind];
            let mut from = f64::NEG_INFINITY;
            if fact.pass == self.pass && fact.cap <= old && self.holds(&fact, given) {
                if fact.x >= old {
                    continue;
                }
                from = fact.x;
            }
            let new = self.profile.earliest(k, d, old, from);
            let x = if new < old {
                self.move_to(idx - 1, new);
                while self.given_back.last().is_some_and(|&(_, start)| start >= old) {
                    self.given_back.pop();
                }
                self.given_back.push((given, old));
                given += 1;
                new
            } else {
                old
            };
            self.facts[kind] = Fact { pass: self.pass, x, cap: old, given };
        }
    }

    /// Whether `fact` still holds after `given` windows were given back in the pass: none of those
    /// given back since it was learnt starts before its `x`. The earliest start given back in the
    /// whole pass, or none given back since, answers most without a search.
    #[inline]
    fn holds(&self, fact: &Fact, given: usize) -> bool {
        match self.given_back.first() {
            None => true,
            Some(&(_, least)) if least >= fact.x || fact.given == given => true,
            _ => {
                let since = self.given_back.partition_point(|&(n, _)| n < fact.given);
                self.given_back.get(since).is_none_or(|&(_, start)| start >= fact.x)
            }
        }
    }

    /// Start-now compression: in queue order, a job moves to now iff its processors are free over
    /// `[now, min(now + d, old))` (from its own reservation on they are its own), that is iff the
    /// first breakpoint with fewer than its size free is not before that bound. That breakpoint is
    /// looked up once per size between two moves (`first_block`).
    fn compress_now(&mut self, now: f64) {
        let mut free_now = self.profile.free_now();
        self.epoch += 1;
        let mut idx = 0;
        while idx < self.reserved.len() {
            let Waiting { row, procs: k, estimate: d, start: old, .. } = self.reserved[idx];
            idx += 1;
            if old <= now || k > free_now {
                continue;
            }
            let memo = &mut self.first_block[self.size[row as usize] as usize];
            if memo.0 != self.epoch {
                *memo = (self.epoch, self.profile.first_block(k));
            }
            if memo.1 >= (now + d).min(old) {
                self.move_to(idx - 1, now);
                free_now -= k;
                self.epoch += 1;
            }
        }
    }

    /// Start the jobs whose reservations begin now, in queue order; ask for a pass at the next start.
    fn start_due(&mut self, eng: &mut Engine, now: f64) -> Result<(), String> {
        let mut due = Vec::new();
        while let Some(&MinKey(start, r)) = self.starts.peek() {
            let r = r as u32;
            let row = self.row_of_rank[r as usize] as usize;
            if self.res_start[row] != start || !self.waiting[row] {
                self.starts.pop();
                self.stale -= 1;
            } else if start <= now {
                self.starts.pop();
                self.waiting[row] = false;
                due.push(r);
            } else {
                if self.next_wake <= now || start < self.next_wake {
                    eng.wake_at(start);
                    self.next_wake = start;
                }
                break;
            }
        }
        due.sort_unstable();
        for r in due {
            let at = self.reserved.partition_point(|w| w.rank < r);
            self.reserved.remove(at);
            eng.start_first_fit(self.row_of_rank[r as usize] as usize, now)?;
        }
        Ok(())
    }
}

/// Number the distinct keys 0, 1, ... in order of first appearance: each key's number, and how many.
fn dense<K: Hash + Eq>(keys: impl Iterator<Item = K>) -> (Vec<u32>, usize) {
    let mut numbers = HashMap::new();
    let out = keys
        .map(|key| {
            let next = numbers.len() as u32;
            *numbers.entry(key).or_insert(next)
        })
        .collect();
    (out, numbers.len())
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
        if self.ended_early {
            self.ended_early = false;
            if !self.reserved.is_empty() {
                if self.full {
                    self.compress_full(now);
                } else {
                    self.compress_now(now);
                }
            }
        }
        if !eng.events.arrived.is_empty() {
            let mut new = std::mem::take(&mut eng.events.arrived);
            let rank = eng.jobs.rank;
            new.sort_unstable_by_key(|&row| rank[row as usize]);
            for &row in &new {
                let r = row as usize;
                let (k, d) = (eng.jobs.procs[r], eng.jobs.estimate[r]);
                let start = self.profile.earliest(k, d, f64::INFINITY, f64::NEG_INFINITY);
                if start == f64::INFINITY {
                    return Err(format!("conservative: no start for job row {r}"));
                }
                self.place(eng, r, start);
            }
            new.clear();
            eng.events.arrived = new;
        }
        self.start_due(eng, now)
    }
}
