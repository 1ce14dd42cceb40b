//! Asked what size of move markets expected, the sentence on markets answers, not the
//! Committee's own decision, though both give a size of cut: built on generated minutes, with
//! the real index.

mod common;

fn minutes() -> String {
    "# Minutes of the Federal Open Market Committee, March 20, 2026\n\
     \n\
     The manager reported on developments in financial markets over the intermeeting period. \
     Equity prices declined sharply as earnings prospects proved disappointing. Indeed, financial \
     markets had come to place some odds on a larger move of 75 basis points in recent days, \
     importantly reflecting the possibility of a presumed policy response to the declines in \
     equity prices. Open market operations were directed throughout the intermeeting period toward \
     maintaining the federal funds rate at the Committee's target level of 5-1/2 percent.\n\
     \n\
     The members agreed that even with a further 50 basis point reduction in the federal funds \
     rate, the risks to the economy would remain decidedly to the downside. At the conclusion of \
     the discussion, the Committee voted to lower its target for the federal funds rate by 50 \
     basis points to 5 percent.\n"
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_move_markets_expected_is_answered_by_what_markets_priced() {
    let a = common::ask_of_document(
        "market-view",
        "2026-03-20_minutes.md",
        &minutes(),
        "Going into the March 2026 meeting, what size of rate cut had financial markets started \
         to put some odds on?",
    )
    .await
    .answer;
    assert!(
        a.starts_with("Indeed, financial markets had come to place some odds"),
        "{a}"
    );
}
