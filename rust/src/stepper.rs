//! The event loop for Python policies: [`EventCore`], one simulation's [`Events`] as a Python
//! object that `engine/simulator.py`'s thin driver steps through, one call per event time, and
//! that its `Context` updates when a policy acts (start, stop, reject, timer).
//!
//! A stepper rather than a loop calling the policy: the free set and the allocations that Python
//! policies read are Python objects, so giving back a finished job's processors is Python work
//! between the core's events anyway; and the core is borrowed only inside each method, never
//! while Python code runs, so a policy's action during its callback is an ordinary call.

use crate::events::{Events, QUEUED, REJECTED, RUNNING};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One simulation's clock, job states and events (see `rust/src/events.rs`).
#[pyclass(module = "schedlab.native._core")]
pub struct EventCore {
    events: Events,
}

#[pymethods]
impl EventCore {
    /// The jobs of submit times `submit` (float64, per row), submitted in the order of the rows
    /// `order` (int64: by submit time, then id).
    #[new]
    fn new(py: Python<'_>, submit: &Bound<'_, PyAny>, order: &Bound<'_, PyAny>) -> PyResult<Self> {
        let submit = PyBuffer::<f64>::get(submit)?.to_vec(py)?;
        let order = PyBuffer::<i64>::get(order)?.to_vec(py)?;
        let n = submit.len();
        let mut seen = vec![false; n];
        for &r in &order {
            if r < 0 || r as usize >= n || seen[r as usize] {
                return Err(PyValueError::new_err("order must be a permutation of the rows"));
            }
            seen[r as usize] = true;
        }
        if order.len() != n {
            return Err(PyValueError::new_err("order must be a permutation of the rows"));
        }
        Ok(EventCore { events: Events::new(&submit, &order) })
    }

    /// Go to the next event time: None when no event is left, else (time, the rows that ended
    /// then or None, the rows submitted then or None). Submitted rows wait until [`Self::release`].
    #[allow(clippy::type_complexity)]
    fn step(&mut self) -> Option<(f64, Option<Vec<u32>>, Option<Vec<u32>>)> {
        let ev = &mut self.events;
        if !ev.advance() {
            return None;
        }
        let done = (!ev.done.is_empty()).then(|| ev.done.clone());
        let arrived = (!ev.arrived.is_empty()).then(|| ev.arrived.clone());
        Some((ev.now, done, arrived))
    }

    /// The rows submitted at this event time are queued (after the policy heard of the completions).
    fn release(&mut self) {
        self.events.release();
    }

    /// The state of job `row` (0 not submitted, 1 queued, 2 running, 3 done, 4 rejected).
    fn state(&self, row: usize) -> PyResult<u8> {
        self.events.state.get(row).copied().ok_or_else(|| PyValueError::new_err(format!("no job row {row}")))
    }

    /// When the current run of job `row` started (NaN when it does not run).
    fn started(&self, row: usize) -> PyResult<f64> {
        self.events.start.get(row).copied().ok_or_else(|| PyValueError::new_err(format!("no job row {row}")))
    }

    /// Start queued job `row` now, to end `duration` later.
    fn launch(&mut self, row: usize, duration: f64) -> PyResult<()> {
        self.expect(row, QUEUED)?;
        self.events.launch(row, duration);
        Ok(())
    }

    /// Stop running job `row` now (it waits again; its scheduled end is void); return when its run started.
    fn stop(&mut self, row: usize) -> PyResult<f64> {
        self.expect(row, RUNNING)?;
        Ok(self.events.stop(row))
    }

    /// Queued job `row` will never run.
    fn reject(&mut self, row: usize) -> PyResult<()> {
        self.expect(row, QUEUED)?;
        self.events.state[row] = REJECTED;
        Ok(())
    }

    /// Ask for a scheduling pass at `time` (after the current event time).
    fn wake_at(&mut self, time: f64) -> PyResult<()> {
        if time.partial_cmp(&self.events.now) != Some(std::cmp::Ordering::Greater) {
            return Err(PyValueError::new_err(format!("timer at {time} is not after now")));
        }
        self.events.wake_at(time);
        Ok(())
    }

    /// The raw native-endian bytes of the states (uint8), starts and ends (float64), per row.
    fn outcome<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyBytes>> {
        let ev = &self.events;
        vec![PyBytes::new(py, &ev.state), crate::bytes(py, &ev.start), crate::bytes(py, &ev.end)]
    }
}

impl EventCore {
    /// Refuse an action on a job of another state than `state` (the Python side checked it first,
    /// with the user's message; this keeps the core consistent whatever calls it).
    fn expect(&self, row: usize, state: u8) -> PyResult<()> {
        match self.events.state.get(row) {
            Some(&s) if s == state => Ok(()),
            _ => Err(PyValueError::new_err(format!("job row {row} is not in state {state}"))),
        }
    }
}
