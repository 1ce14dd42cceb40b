//! Colours and styles in one place.

use crate::orchestrator::api::{FinalReason, RetrievalConfidence};
use ratatui::style::{Color, Modifier, Style};

pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

pub fn spinner(tick: u64) -> &'static str {
    SPINNER[(tick % SPINNER.len() as u64) as usize]
}

pub fn band_color(reason: FinalReason) -> Color {
    match reason {
        FinalReason::ConfidenceHigh => Color::Green,
        FinalReason::ConfidenceMediumCaveated => Color::Yellow,
        FinalReason::ConfidenceLowPartial => Color::LightRed,
        FinalReason::ConfidenceTooLowClarify
        | FinalReason::InsufficientEvidence
        | FinalReason::GuardrailBlocked
        | FinalReason::Error => Color::Red,
        FinalReason::Incoherent | FinalReason::NoRetrievalNeeded | FinalReason::Cancelled => {
            Color::Gray
        }
    }
}

pub fn retrieval_color(r: RetrievalConfidence) -> Color {
    match r {
        RetrievalConfidence::High => Color::Green,
        RetrievalConfidence::Medium => Color::Yellow,
        RetrievalConfidence::Low => Color::LightRed,
        RetrievalConfidence::Insufficient => Color::Red,
    }
}

pub fn citation_marker() -> Style {
    Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::BOLD)
}

pub fn focused_border() -> Style {
    Style::default().fg(Color::Cyan)
}

pub fn border() -> Style {
    Style::default().fg(Color::DarkGray)
}

pub fn highlight() -> Style {
    Style::default()
        .bg(Color::Yellow)
        .fg(Color::Black)
        .add_modifier(Modifier::BOLD)
}

pub fn selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED)
}

pub fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

pub fn question() -> Style {
    Style::default()
        .fg(Color::Blue)
        .add_modifier(Modifier::BOLD)
}
