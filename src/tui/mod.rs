//! Terminal UI: one `App` state, an `Action` enum, a pure `update` (no I/O: it returns
//! [`Effect`]s as data) and a `view` that draws the state into a ratatui `Frame`.
//!
//! Each panel and overlay is one module under `components/`: its key table (`KEYS`, data the
//! help overlay is generated from), its key handler, its updates for its own actions, its
//! drawing. `update::translate_key` routes a key (the global keys, then the open overlay or
//! the focused panel); `update::update` routes an action to the component that owns it.
//!
//! Modules import only from the ones listed before them (the test
//! `the_tui_modules_import_each_other_without_cycles` in `tests/tui.rs` checks there is no
//! cycle):
//!
//! 1. `action` (actions, effects, `Dir`); `theme`, `json_tree`;
//! 2. `keymap` (chords, bindings, key groups); `widgets` (drawing helpers);
//! 3. `turn` (a question and its answer);
//! 4. the overlays, whose state `App` holds: `components::{help, year_picker, inspector,
//!    passage, sessions}`;
//! 5. `app` (the state); `events` (orchestrator events applied to it);
//! 6. the panels, which read `App`: `components::{global, input, chat, citations, topology,
//!    breakers, confidence}`;
//! 7. `keys` (every key table, in help order); `components::status` (its hints name keys from
//!    the tables);
//! 8. `update`, `view`;
//! 9. the parts that do I/O: `terminal`, `startup`, `session_io`, `components::indexing`,
//!    `event_loop`.
//!
//! `terminal` and `event_loop` are the only parts that touch the real terminal; everything else
//! runs on a `TestBackend`.

pub mod action;
pub mod app;
pub mod components;
pub mod event_loop;
pub mod events;
pub mod graph;
pub mod json_tree;
pub mod keymap;
pub mod keys;
pub mod session_io;
pub mod startup;
pub mod terminal;
pub mod theme;
pub mod turn;
pub mod update;
pub mod view;
pub mod widgets;

pub use action::{Action, Dir, Effect};
pub use app::{App, BackendRow, Focus, Overlay};
pub use event_loop::run_app;
pub use turn::{LiveStage, Turn};
pub use update::update;
pub use view::view;
