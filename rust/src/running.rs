//! Running jobs in order of (estimated end, row), in sorted blocks with per-block processor sums,
//! as the Python `RunningByEnd` (policies/rigid/running.py): EASY's reservation walks the block
//! sums, then one block, instead of every running job.

const BLOCK: usize = 64;

type Key = (f64, u32);

#[inline]
fn less(a: &Key, b: &Key) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

pub struct RunningByEnd {
    blocks: Vec<Vec<Key>>,
    last: Vec<Key>,
    sums: Vec<i64>,
}

impl RunningByEnd {
    pub fn new() -> Self {
        RunningByEnd { blocks: Vec::new(), last: Vec::new(), sums: Vec::new() }
    }

    pub fn add(&mut self, end: f64, row: u32, procs: &[i64]) {
        let key = (end, row);
        if self.blocks.is_empty() {
            self.blocks.push(vec![key]);
            self.last.push(key);
            self.sums.push(procs[row as usize]);
            return;
        }
        let mut i = self.last.partition_point(|k| less(k, &key));
        if i == self.blocks.len() {
            i -= 1;
        }
        let block = &mut self.blocks[i];
        let j = block.partition_point(|k| less(k, &key));
        block.insert(j, key);
        self.last[i] = *block.last().unwrap();
        self.sums[i] += procs[row as usize];
        if block.len() > 2 * BLOCK {
            let half = block.split_off(BLOCK);
            self.last[i] = *block.last().unwrap();
            let moved: i64 = half.iter().map(|k| procs[k.1 as usize]).sum();
            self.sums[i] -= moved;
            self.last.insert(i + 1, *half.last().unwrap());
            self.sums.insert(i + 1, moved);
            self.blocks.insert(i + 1, half);
        }
    }

    pub fn remove(&mut self, end: f64, row: u32, procs: &[i64]) {
        let key = (end, row);
        let i = self.last.partition_point(|k| less(k, &key));
        let block = &mut self.blocks[i];
        let j = block.partition_point(|k| less(k, &key));
        debug_assert!(block[j] == key);
        block.remove(j);
        if block.is_empty() {
            self.blocks.remove(i);
            self.last.remove(i);
            self.sums.remove(i);
        } else {
            self.last[i] = *block.last().unwrap();
            self.sums[i] -= procs[row as usize];
        }
    }

    /// Earliest estimated end at which `need` processors are free (with `available` free now), and
    /// the surplus then; jobs ending exactly at that time all count. None if never enough.
    pub fn reservation(&self, need: i64, available: i64, procs: &[i64]) -> Option<(f64, i64)> {
        let mut available = available;
        let n = self.blocks.len();
        let mut i = 0;
        while i < n && available + self.sums[i] < need {
            available += self.sums[i];
            i += 1;
        }
        if i == n {
            return None;
        }
        let mut block = &self.blocks[i];
        let mut j = 0;
        while available < need {
            available += procs[block[j].1 as usize];
            j += 1;
        }
        let shadow = block[j - 1].0;
        loop {
            while j < block.len() && block[j].0 == shadow {
                available += procs[block[j].1 as usize];
                j += 1;
            }
            if j < block.len() || i + 1 == n {
                break;
            }
            i += 1;
            block = &self.blocks[i];
            j = 0;
        }
        Some((shadow, available - need))
    }
}
