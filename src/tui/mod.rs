//! Terminal UI: one `App` state, an `Action` enum, a pure `update` (no I/O: it returns
//! [`Effect`]s as data) and a `view` that draws the state into a ratatui `Frame`.
//!
//! `terminal` and `event_loop` are the only parts that touch the real terminal; everything else
//! runs on a `TestBackend`.

pub mod action;
pub mod app;
pub mod components;
pub mod event_loop;
pub mod json_tree;
pub mod session_io;
pub mod startup;
pub mod terminal;
pub mod theme;
pub mod view;

pub use action::{Action, Dir, Effect};
pub use app::{update, App, BackendRow, Focus, LiveStage, Overlay, Turn};
pub use event_loop::run_app;
pub use view::view;
