//! Asked for a figure of some month ("what unemployment rate for May …?"), the sentence giving
//! that month's figure answers, not the staff's projections or the meeting's target, though
//! they hold more of the question's words: built on generated minutes, with the real index.

mod common;

fn minutes() -> String {
    "# Minutes of the Federal Open Market Committee, June 24, 2026\n\
     \n\
     Staff Review of the Economic Situation\n\
     \n\
     At its April meeting, the Federal Open Market Committee kept the target for the federal \
     funds rate unchanged at 2 percent, as the unemployment rate reported in the minutes was \
     little changed. Unemployment edged up further in May, to 6.1 percent, and the number of \
     job losers increased. Payrolls declined again.\n\
     \n\
     Staff Economic Outlook\n\
     \n\
     The staff projected that the unemployment rate reported for the fourth quarter would be \
     between 6 and 6-1/4 percent, and that the unemployment rate would edge down to 5-3/4 \
     percent by the end of next year as the economy recovered.\n"
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_figure_asked_for_a_month_is_that_months() {
    let a = common::ask_of_document(
        "data-month",
        "2026-06-24_minutes.md",
        &minutes(),
        "What unemployment rate for May did the June 2026 FOMC minutes report?",
    )
    .await
    .answer;
    assert!(
        a.starts_with("Unemployment edged up further in May, to 6.1 percent"),
        "{a}"
    );
}
