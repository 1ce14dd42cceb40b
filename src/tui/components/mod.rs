//! One module per panel or overlay: its key table (`KEYS`), its key handler, its updates for
//! its own actions and its drawing. Each draws into the `Rect` it is given and never outside it.
//!
//! Overlays (help, year picker, inspector, passage, sessions) define their state as a type the
//! `App` holds while they are open, so they sit below `app` and take what they show as
//! arguments. Panels (global keys, input, chat, citations, topology, breakers, confidence,
//! status) keep their state in `App` and read it. `indexing` draws the progress view shown
//! before the chat.

pub mod breakers;
pub mod chat;
pub mod citations;
pub mod confidence;
pub mod global;
pub mod help;
pub mod indexing;
pub mod input;
pub mod inspector;
pub mod passage;
pub mod sessions;
pub mod status;
pub mod topology;
pub mod year_picker;
