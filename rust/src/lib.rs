//! schedlab's compiled core (`schedlab.native._core`): the one event loop every simulation runs
//! on (`events.rs`; Python policies step it through `EventCore`, `stepper.rs`), the built-in
//! FCFS, EASY and conservative backfilling policies on columnar inputs; and, sharing no code
//! with them, the validator's double-booking sweep, the allocation text of `jobs.csv` and the SWF
//! parser of `workload/swf.py`. Python reaches it through the engine (`engine/simulator.py`), the
//! compiled policies (`policies/rigid/compiled.py`) and those readers and writers; the pure-Python
//! policies stay the compiled ones' reference.

mod alloc_text;
mod conservative;
mod csv_out;
mod engine;
mod events;
mod fcfs;
mod free_set;
mod mask_profile;
mod profile;
mod queue;
mod running;
mod stepper;
mod swf;
mod validate;

use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn column<T: Element + Copy>(
    py: Python<'_>,
    name: &str,
    obj: &Bound<'_, PyAny>,
) -> PyResult<Vec<T>> {
    let buf = PyBuffer::<T>::get(obj)
        .map_err(|e| PyValueError::new_err(format!("column {name}: {e}")))?;
    buf.to_vec(py)
}

fn bytes<'py, T: Copy>(py: Python<'py>, data: &[T]) -> Bound<'py, PyBytes> {
    // SAFETY: T is a plain number type (f64 or i64); its bytes are read as they lie in memory.
    let raw = unsafe {
        std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data))
    };
    PyBytes::new(py, raw)
}

/// Simulate `policy` with first-fit allocation on `n_procs` processors: `fcfs`, `easy`,
/// `conservative-full` or `conservative-start-now` (conservative backfilling and its compression).
///
/// Columns (row-aligned, contiguous): submit, requested time and duration (float64), procs, rank
/// in the queue order and the rows in submission order (int64). Returns the raw native-endian bytes
/// of start, end (float64, per row), offsets (int64, n + 1) and the ranges' low and high ends (int64):
/// job r holds `[los[k], his[k])` for k in `offsets[r]..offsets[r + 1]`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (policy, n_procs, submit, procs, estimate, duration, rank, order))]
fn simulate_rigid<'py>(
    py: Python<'py>,
    policy: &str,
    n_procs: i64,
    submit: &Bound<'py, PyAny>,
    procs: &Bound<'py, PyAny>,
    estimate: &Bound<'py, PyAny>,
    duration: &Bound<'py, PyAny>,
    rank: &Bound<'py, PyAny>,
    order: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let submit = column::<f64>(py, "submit", submit)?;
    let procs = column::<i64>(py, "procs", procs)?;
    let estimate = column::<f64>(py, "requested_time", estimate)?;
    let duration = column::<f64>(py, "duration", duration)?;
    let rank = column::<i64>(py, "rank", rank)?;
    let order = column::<i64>(py, "order", order)?;
    let n = submit.len();
    if [
        procs.len(),
        estimate.len(),
        duration.len(),
        rank.len(),
        order.len(),
    ]
    .iter()
    .any(|&l| l != n)
    {
        return Err(PyValueError::new_err("columns of different lengths"));
    }
    if procs.iter().any(|&p| p < 0 || p > n_procs) {
        return Err(PyValueError::new_err(
            "a job needs more processors than the machine has",
        ));
    }
    let mut seen = vec![(false, false); n];
    for (&r, &o) in rank.iter().zip(&order) {
        if r < 0
            || o < 0
            || r as usize >= n
            || o as usize >= n
            || seen[r as usize].0
            || seen[o as usize].1
        {
            return Err(PyValueError::new_err(
                "rank and order must be permutations of the rows",
            ));
        }
        seen[r as usize].0 = true;
        seen[o as usize].1 = true;
    }
    if ![
        "fcfs",
        "easy",
        "conservative-full",
        "conservative-start-now",
    ]
    .contains(&policy)
    {
        return Err(PyValueError::new_err(format!("unknown policy {policy}")));
    }
    let outcome = py
        .allow_threads(|| {
            let jobs = engine::Jobs {
                submit: &submit,
                procs: &procs,
                estimate: &estimate,
                duration: &duration,
                rank: &rank,
                order: &order,
            };
            match policy {
                "fcfs" | "easy" => {
                    engine::run(jobs, n_procs, &mut fcfs::Fcfs::new(policy == "easy", &rank))
                }
                _ => {
                    let full = policy == "conservative-full";
                    let mut policy =
                        conservative::Conservative::new(full, n_procs, &rank, &procs, &estimate);
                    engine::run(jobs, n_procs, &mut policy)
                }
            }
        })
        .map_err(PyValueError::new_err)?;
    Ok(vec![
        bytes(py, &outcome.start),
        bytes(py, &outcome.end),
        bytes(py, &outcome.offsets),
        bytes(py, &outcome.los),
        bytes(py, &outcome.his),
    ])
}

/// Rule 9 of the validator: replay the sorted `events` (e < m: release of execution e; m + e: its
/// start) over the executions' flat ranges (execution e: `offsets[e]..offsets[e + 1]`, int64
/// columns) and return the first clash as (processor, execution), or None.
#[pyfunction]
fn first_double_booking(
    py: Python<'_>,
    events: &Bound<'_, PyAny>,
    m: usize,
    offsets: &Bound<'_, PyAny>,
    lo: &Bound<'_, PyAny>,
    hi: &Bound<'_, PyAny>,
    n_procs: usize,
) -> PyResult<Option<(i64, usize)>> {
    let events = column::<i64>(py, "events", events)?;
    let offsets = column::<i64>(py, "offsets", offsets)?;
    let lo = column::<i64>(py, "lo", lo)?;
    let hi = column::<i64>(py, "hi", hi)?;
    let ranges_ok = lo.len() == hi.len()
        && lo
            .iter()
            .zip(&hi)
            .all(|(&a, &b)| 0 <= a && a < b && b as usize <= n_procs);
    let offsets_ok = offsets.len() == m + 1
        && offsets.first() == Some(&0)
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && offsets[m] as usize == lo.len();
    if !ranges_ok || !offsets_ok || events.iter().any(|&ev| ev < 0 || ev as usize >= 2 * m) {
        return Err(PyValueError::new_err("malformed executions"));
    }
    Ok(
        py.allow_threads(|| {
            validate::first_double_booking(&events, m, &offsets, &lo, &hi, n_procs)
        }),
    )
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_rigid, m)?)?;
    m.add_function(wrap_pyfunction!(first_double_booking, m)?)?;
    m.add_function(wrap_pyfunction!(swf::parse_swf, m)?)?;
    m.add_function(wrap_pyfunction!(alloc_text::format_ranges, m)?)?;
    m.add_function(wrap_pyfunction!(csv_out::append_csv_rows, m)?)?;
    m.add_class::<stepper::EventCore>()?;
    m.add_class::<mask_profile::MaskProfile>()?;
    Ok(())
}
