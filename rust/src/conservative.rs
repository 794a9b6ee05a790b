//! Conservative backfilling with first-fit allocation: the decisions of
//! `policies/rigid/conservative.py` on processor counts (Mu'alem and Feitelson 2001), the oracle
//! of the tests. Every waiting job holds a reservation in the [`Profile`]; an early end
//! compresses them in queue order, to the earliest start the profile allows (`full`) or only to
//! now (`start-now`).

use crate::engine::{Engine, Policy};
use crate::fcfs::row_of_rank;
use crate::profile::Profile;
use std::collections::{BTreeSet, HashMap};

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

pub struct Conservative {
    full: bool,
    profile: Profile,
    row_of_rank: Vec<u32>,
    /// Ranks of waiting jobs holding a reservation, sorted.
    reserved: Vec<usize>,
    /// Reservation start (waiting) or start (running), per row.
    res_start: Vec<f64>,
    /// (reservation start as an ordered key, rank) of every waiting job.
    starts: BTreeSet<(u64, u32)>,
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
}

impl Conservative {
    pub fn new(full: bool, n_procs: i64, rank: &[i64], procs: &[i64], estimate: &[f64]) -> Self {
        let n = rank.len();
        let mut kinds = HashMap::new();
        let kind: Vec<u32> = procs
            .iter()
            .zip(estimate)
            .map(|(&k, &d)| {
                let next = kinds.len() as u32;
                *kinds.entry((k, d.to_bits())).or_insert(next)
            })
            .collect();
        let void = Fact { pass: 0, x: 0.0, cap: 0.0, given: 0 };
        Conservative {
            full,
            profile: Profile::new(n_procs, 0.0),
            row_of_rank: row_of_rank(rank),
            reserved: Vec::new(),
            res_start: vec![f64::INFINITY; n],
            starts: BTreeSet::new(),
            waiting: vec![false; n],
            ended_early: false,
            next_wake: f64::INFINITY,
            facts: vec![void; kinds.len()],
            kind,
            pass: 0,
            given_back: Vec::new(),
        }
    }

    fn reserve(&mut self, eng: &mut Engine, row: usize, start: f64) {
        self.profile.add(start, start + eng.jobs.estimate[row], -eng.jobs.procs[row]);
        let r = eng.jobs.rank[row] as usize;
        if self.waiting[row] {
            self.starts.remove(&(key(self.res_start[row]), r as u32));
        } else {
            self.waiting[row] = true;
            let at = self.reserved.partition_point(|&x| x < r);
            self.reserved.insert(at, r);
        }
        self.res_start[row] = start;
        self.starts.insert((key(start), r as u32));
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
    fn compress_full(&mut self, eng: &mut Engine, now: f64) {
        self.pass += 1;
        self.given_back.clear();
        let mut given = 0;
        let mut idx = 0;
        while idx < self.reserved.len() {
            let row = self.row_of_rank[self.reserved[idx]] as usize;
            idx += 1;
            let old = self.res_start[row];
            if old <= now {
                continue;
            }
            let (k, d) = (eng.jobs.procs[row], eng.jobs.estimate[row]);
            let kind = self.kind[row] as usize;
            let fact = self.facts[kind];
            let mut from = f64::NEG_INFINITY;
            if fact.pass == self.pass {
                let since = self.given_back.partition_point(|&(n, _)| n < fact.given);
                let holds = self.given_back.get(since).is_none_or(|&(_, start)| start >= fact.x);
                if holds && fact.cap <= old {
                    if fact.x >= old {
                        continue;
                    }
                    from = fact.x;
                }
            }
            let new = self.profile.earliest(k, d, old, from);
            let x = if new < old {
                self.profile.add(old, old + d, k);
                self.reserve(eng, row, new);
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

    /// Start-now compression: in queue order, a job moves to now iff its processors are free over
    /// `[now, min(now + d, old))` (from its own reservation on they are its own).
    fn compress_now(&mut self, eng: &mut Engine, now: f64) {
        let mut free_now = self.profile.free_now();
        let mut idx = 0;
        while idx < self.reserved.len() {
            let row = self.row_of_rank[self.reserved[idx]] as usize;
            idx += 1;
            let old = self.res_start[row];
            let (k, d) = (eng.jobs.procs[row], eng.jobs.estimate[row]);
            if old <= now || k > free_now {
                continue;
            }
            if self.profile.fits_until(k, (now + d).min(old)) {
                self.profile.add(old, old + d, k);
                self.reserve(eng, row, now);
                free_now -= k;
            }
        }
    }

    /// Start the jobs whose reservations begin now, in queue order; ask for a pass at the next start.
    fn start_due(&mut self, eng: &mut Engine, now: f64) -> Result<(), String> {
        let mut due = Vec::new();
        while self.starts.first().is_some_and(|&(start, _)| start <= key(now)) {
            let (_, r) = self.starts.pop_first().unwrap();
            self.waiting[self.row_of_rank[r as usize] as usize] = false;
            due.push(r as usize);
        }
        due.sort_unstable();
        for r in due {
            let at = self.reserved.partition_point(|&x| x < r);
            self.reserved.remove(at);
            eng.start_first_fit(self.row_of_rank[r] as usize, now)?;
        }
        if self.next_wake <= now {
            self.next_wake = f64::INFINITY;
        }
        if let Some(&(_, r)) = self.starts.first() {
            let start = self.res_start[self.row_of_rank[r as usize] as usize];
            if start < self.next_wake {
                eng.wake_at(start);
                self.next_wake = start;
            }
        }
        Ok(())
    }
}

/// An integer key ordered as the times `t` are (total order of floats).
fn key(t: f64) -> u64 {
    let bits = t.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
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
                let (k, d) = (eng.jobs.procs[r], eng.jobs.estimate[r]);
                let start = self.profile.earliest(k, d, f64::INFINITY, f64::NEG_INFINITY);
                if start == f64::INFINITY {
                    return Err(format!("conservative: no start for job row {r}"));
                }
                self.reserve(eng, r, start);
            }
            new.clear();
            eng.arrived = new;
        }
        self.start_due(eng, now)
    }
}
