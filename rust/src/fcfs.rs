//! Strict FCFS and EASY backfilling with first-fit allocation: the decisions of
//! `policies/rigid/fcfs.py` (issue 2's exact semantics), which are the oracle of the tests.

use crate::engine::{Engine, Policy};
use crate::queue::RankQueue;
use crate::running::RunningByEnd;

pub struct Fcfs {
    easy: bool,
    queue: RankQueue,
    running: RunningByEnd,
    row_of_rank: Vec<u32>,
    expected_end: Vec<f64>,
}

impl Fcfs {
    /// FCFS (`easy` false) or EASY for the jobs of `rank` (their places in the queue order).
    pub fn new(easy: bool, rank: &[i64]) -> Self {
        let n = rank.len();
        Fcfs {
            easy,
            queue: RankQueue::new(n),
            running: RunningByEnd::new(),
            row_of_rank: row_of_rank(rank),
            expected_end: vec![0.0; if easy { n } else { 0 }],
        }
    }

    /// Queue the jobs submitted now, in queue order; when nothing waits, those that fit start at once.
    fn enqueue_arrivals(&mut self, eng: &mut Engine, now: f64) -> Result<(), String> {
        let mut arrived = std::mem::take(&mut eng.events.arrived);
        let rank = eng.jobs.rank;
        arrived.sort_unstable_by_key(|&row| rank[row as usize]);
        let mut i = 0;
        if self.queue.count == 0 {
            while i < arrived.len() && eng.jobs.procs[arrived[i] as usize] <= eng.free.size {
                self.start_row(eng, arrived[i] as usize, now)?;
                i += 1;
            }
        }
        for &row in &arrived[i..] {
            let r = row as usize;
            self.queue.push(rank[r] as usize, eng.jobs.procs[r], eng.jobs.estimate[r]);
        }
        arrived.clear();
        eng.events.arrived = arrived;
        Ok(())
    }

    /// Start queue heads while they fit; return the blocked head's rank, if any.
    fn start_heads(&mut self, eng: &mut Engine, now: f64) -> Result<Option<usize>, String> {
        while let Some(head) = self.queue.head() {
            if eng.jobs.procs[self.row_of_rank[head] as usize] > eng.free.size {
                return Ok(Some(head));
            }
            self.start_rank(eng, head, now)?;
        }
        Ok(None)
    }

    fn start_rank(&mut self, eng: &mut Engine, rank: usize, now: f64) -> Result<usize, String> {
        let row = self.row_of_rank[rank] as usize;
        self.start_row(eng, row, now)?;
        self.queue.remove(rank);
        Ok(row)
    }

    fn start_row(&mut self, eng: &mut Engine, row: usize, now: f64) -> Result<(), String> {
        eng.start_first_fit(row, now)?;
        if self.easy {
            let e = now + eng.jobs.estimate[row];
            self.expected_end[row] = e;
            self.running.add(e, row as u32, eng.jobs.procs);
        }
        Ok(())
    }
}

impl Policy for Fcfs {
    fn complete(&mut self, eng: &mut Engine, rows: &[u32], _now: f64) -> Result<(), String> {
        if self.easy {
            for &row in rows {
                self.running.remove(self.expected_end[row as usize], row, eng.jobs.procs);
            }
        }
        Ok(())
    }

    fn schedule(&mut self, eng: &mut Engine, now: f64) -> Result<(), String> {
        if !eng.events.arrived.is_empty() {
            self.enqueue_arrivals(eng, now)?;
        }
        if self.queue.count == 0 || eng.free.size < self.queue.min_procs() {
            return Ok(()); // nothing waiting can start now
        }
        let head = match self.start_heads(eng, now)? {
            Some(h) if self.easy => h,
            _ => return Ok(()),
        };
        let mut n_free = eng.free.size;
        let Some(mut candidate) = self.queue.first(head + 1, n_free, f64::INFINITY, -1) else {
            return Ok(());
        };
        let procs = eng.jobs.procs;
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
            let row = self.start_rank(eng, candidate, now)?;
            n_free -= procs[row];
            if eng.jobs.estimate[row] > limit {
                extra -= procs[row];
            }
            candidate += 1;
        }
    }
}

/// The inverse permutation of `rank`.
pub fn row_of_rank(rank: &[i64]) -> Vec<u32> {
    let mut rows = vec![0u32; rank.len()];
    for (row, &r) in rank.iter().enumerate() {
        rows[r as usize] = row as u32;
    }
    rows
}
