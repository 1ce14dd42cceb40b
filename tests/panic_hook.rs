//! The terminal's panic hook, installed for real (in a test binary of its own, since a panic
//! hook is global to the process): a panic caught on another thread leaves the terminal alone,
//! the UI thread's own panic restores it, and with no UI running nothing is restored.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use fathom::tui::terminal::{install_panic_hook_with, mark_ui_thread, unmark_ui_thread};

#[test]
fn only_a_panic_of_the_ui_thread_restores_the_terminal() {
    let restores = Arc::new(AtomicUsize::new(0));
    let counter = restores.clone();
    install_panic_hook_with(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    mark_ui_thread();

    // A worker panics and its panic is caught (as the indexing thread's and tokio's are): the
    // UI carries on, so its terminal must stay as it is.
    let worker = std::thread::spawn(|| panic!("a worker fails"));
    assert!(worker.join().is_err());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let task =
        rt.block_on(async { tokio::task::spawn_blocking(|| panic!("a blocking job fails")).await });
    assert!(task.is_err());
    assert_eq!(
        restores.load(Ordering::SeqCst),
        0,
        "restored for a caught panic"
    );

    // The UI thread's own panic ends the UI: restore first.
    let ui = std::panic::catch_unwind(|| panic!("the UI fails"));
    assert!(ui.is_err());
    assert_eq!(restores.load(Ordering::SeqCst), 1);

    // Once the UI has given the terminal back, nothing is restored any more.
    unmark_ui_thread();
    assert!(std::panic::catch_unwind(|| panic!("after the UI")).is_err());
    assert!(std::thread::spawn(|| panic!("after, elsewhere"))
        .join()
        .is_err());
    assert_eq!(restores.load(Ordering::SeqCst), 1);
}
