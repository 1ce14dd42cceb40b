//! The progress view shown while the index is prepared, and the one-line notice drawn on the
//! chat's top border once the chat is up (e.g. "dense retrieval is off: `make model`").

use crate::tui::app::{App, Overlay};
use crate::tui::startup::{Phase, StartupView};
use crate::tui::theme;
use crate::tui::view::{SIDE_MIN_WIDTH, SIDE_WIDTH};
use crate::tui::widgets::centered;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Gauge, Paragraph, Wrap};
use ratatui::Frame;

pub fn render_startup(v: &StartupView, frame: &mut Frame) {
    let area = frame.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    const WIDTH: u16 = 76;
    let para = Paragraph::new(lines(v)).wrap(Wrap { trim: true });
    // The wrapped text, the gauge, the footer and the borders.
    let rows = para.line_count(WIDTH - 2) + 4;
    let box_area = centered(area, WIDTH, u16::try_from(rows).unwrap_or(u16::MAX));
    let title = if v.phase == Phase::Failed {
        " fathom · the index could not be prepared "
    } else {
        " fathom · preparing the index "
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::focused_border())
        .title(Span::raw(title));
    let inner = block.inner(box_area);
    frame.render_widget(block, box_area);
    if inner.height == 0 {
        return;
    }
    let [text_area, gauge_area, foot_area] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(para, text_area);
    if v.phase != Phase::Failed {
        let label = if v.embed_total > 0 && v.phase == Phase::Embedding {
            format!("{}/{} chunks", v.embedded, v.embed_total)
        } else {
            format!("{:.0} %", v.ratio() * 100.0)
        };
        frame.render_widget(
            Gauge::default()
                .gauge_style(Style::default().fg(Color::Cyan))
                .ratio(v.ratio().clamp(0.0, 1.0))
                .label(label),
            gauge_area,
        );
    }
    let foot = if v.phase == Phase::Failed {
        "q or Ctrl-C quits"
    } else {
        "the chat opens when the index is ready · Ctrl-C quits"
    };
    frame.render_widget(Paragraph::new(Span::styled(foot, theme::dim())), foot_area);
}

fn lines(v: &StartupView) -> Vec<Line<'static>> {
    let key = |k: &str| Span::styled(format!("{k:<10}"), theme::dim());
    let mut out = Vec::new();
    let mut corpus = vec![key("corpus"), Span::raw(v.corpus.clone())];
    if v.sample {
        corpus.push(Span::styled(
            " (built-in sample; pass --corpus DIR for yours)",
            theme::dim(),
        ));
    }
    out.push(Line::from(corpus));
    let phase_style = if v.phase == Phase::Failed {
        Style::default().fg(Color::Red).add_modifier(Modifier::BOLD)
    } else {
        Style::default().fg(Color::Yellow)
    };
    let spinner = if v.phase == Phase::Failed {
        "✗"
    } else {
        theme::spinner(v.spinner_tick)
    };
    out.push(Line::from(vec![
        key("phase"),
        Span::styled(format!("{spinner} {}", v.phase.label()), phase_style),
    ]));
    let documents = v
        .documents
        .map(|d| d.to_string())
        .unwrap_or_else(|| "…".into());
    let mut counts = format!("{documents} documents");
    if let Some(n) = v.to_index {
        counts.push_str(&format!(" · {n} chunks new or changed"));
    }
    if v.embed_total > 0 {
        counts.push_str(&format!(" · {}/{} embedded", v.embedded, v.embed_total));
    }
    if v.skipped > 0 {
        counts.push_str(&format!(" · {} files skipped", v.skipped));
    }
    out.push(Line::from(vec![key("progress"), Span::raw(counts)]));
    if let Some(reason) = &v.rebuilding {
        out.push(Line::from(vec![key("rebuild"), Span::raw(reason.clone())]));
    }
    if let Some(n) = &v.notice {
        out.push(Line::from(Span::styled(
            format!("note: {n}"),
            Style::default().fg(Color::Yellow),
        )));
    }
    if let Some(e) = &v.error {
        out.push(Line::from(Span::styled(
            e.clone(),
            Style::default().fg(Color::Red),
        )));
    }
    out
}

/// Draws `notice` on the chat panel's top border, after its title, so it hides no content.
/// Skipped while an overlay is open (overlays may cover that row).
pub fn render_notice(app: &App, notice: &str, frame: &mut Frame) {
    let area = frame.area();
    if app.overlay != Overlay::None || area.height < 3 {
        return;
    }
    let chat_width = if area.width >= SIDE_MIN_WIDTH {
        area.width - SIDE_WIDTH
    } else {
        area.width
    };
    // " Chat " sits at columns 1..7; leave a border cell on either side of the notice.
    let x = area.x + 8;
    let width = chat_width.saturating_sub(9);
    if width < 8 {
        return;
    }
    frame.render_widget(
        Paragraph::new(Span::styled(
            format!(" {notice} "),
            Style::default().fg(Color::Yellow),
        )),
        Rect::new(x, area.y, width, 1),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::api::StartupProgress;
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    fn text(t: &Terminal<TestBackend>) -> String {
        let buf = t.backend().buffer();
        let mut s = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    #[test]
    fn the_progress_view_shows_counts_phase_and_gauge() {
        let mut v = StartupView::new("/docs", true);
        v.apply(StartupProgress::Scanned {
            documents: 224,
            to_embed: 742,
        });
        v.apply(StartupProgress::Embedded {
            done: 300,
            total: 742,
        });
        let mut t = Terminal::new(TestBackend::new(100, 20)).unwrap();
        t.draw(|f| render_startup(&v, f)).unwrap();
        let s = text(&t);
        assert!(s.contains("224 documents"), "{s}");
        assert!(s.contains("embedding new and changed chunks"), "{s}");
        assert!(s.contains("300/742 chunks"), "{s}");
        assert!(s.contains("built-in sample"), "{s}");
    }

    #[test]
    fn tiny_terminals_do_not_panic() {
        let mut v = StartupView::new("/a/very/long/path/to/documents", false);
        v.fail("cannot read the corpus".into());
        for (w, h) in [(1, 1), (20, 5), (5, 20), (0, 0)] {
            let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
            t.draw(|f| render_startup(&v, f)).unwrap();
        }
    }
}
