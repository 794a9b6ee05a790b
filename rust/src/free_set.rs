//! The free processors of a plain machine: sorted disjoint ranges `[lo, hi)` keyed by their low end.
//!
//! Same set semantics as the Python `IntervalSet`: adjacent ranges are always merged, so the
//! representation is unique; first fit takes the lowest ids. Cost: O(r log F) to take or
//! return r ranges among F free fragments.

use std::collections::BTreeMap;

pub struct FreeSet {
    ranges: BTreeMap<i64, i64>,
    pub size: i64,
}

impl FreeSet {
    /// All ids `0..n` free.
    pub fn full(n: i64) -> Self {
        let mut ranges = BTreeMap::new();
        if n > 0 {
            ranges.insert(0, n);
        }
        FreeSet { ranges, size: n.max(0) }
    }

    /// Remove the `k` lowest free ids (the caller checked `k <= size`) and append them to `out` as ranges.
    pub fn pop_first(&mut self, k: i64, out: &mut Vec<(i64, i64)>) {
        let mut left = k;
        while left > 0 {
            let (lo, hi) = self.ranges.pop_first().expect("pop_first: fewer free ids than asked");
            if hi - lo > left {
                self.ranges.insert(lo + left, hi);
                out.push((lo, lo + left));
                left = 0;
            } else {
                out.push((lo, hi));
                left -= hi - lo;
            }
        }
        self.size -= k;
    }

    /// Give back the range `[lo, hi)` (its ids are not free), merging it with its neighbours.
    pub fn add(&mut self, lo: i64, hi: i64) {
        self.size += hi - lo;
        let (mut lo, mut hi) = (lo, hi);
        if let Some((&plo, &phi)) = self.ranges.range(..lo).next_back() {
            if phi == lo {
                self.ranges.remove(&plo);
                lo = plo;
            }
        }
        if let Some(nhi) = self.ranges.remove(&hi) {
            hi = nhi;
        }
        self.ranges.insert(lo, hi);
    }
}
