//! The minutes run the first vote of a meeting on from the attendance list, with no full stop
//! between ("…, respectively Selection of Committee Officer By unanimous vote, the Committee
//! selected …"): the vote answers as a sentence of its own, though the list with it is far too
//! long to quote. Built on generated minutes, with the real index.

mod common;

fn minutes() -> String {
    "# Minutes of the Federal Open Market Committee, July 25-26, 2026\n\
     \n\
     A joint meeting of the Federal Open Market Committee and the Board of Governors was held in \
     the offices of the Board of Governors of the Federal Reserve System in Washington, D.C., on \
     Tuesday, July 25, 2026, at 1:00 p.m. PRESENT: Jane Q. Chair, Chair Ann Alder, Economist, Ben \
     Birch, Economist, Cara Cedar, Economist, Dan Dogwood, Economist, Eve Elm, Economist, Fay Fir, \
     Economist, Gus Gum, Economist, Hal Hazel, Economist, Ivy Ilex, Economist, Jon Juniper, \
     Economist, Kim Kauri, Economist, Lou Larch, Economist, Max Maple, Economist, Ned Nutmeg, \
     Economist, Oda Oak, Economist, Pat Pine, Economist; Daniel Aaronson, Joe Peek, and Jonathan \
     L. Willis, Vice Presidents, Federal Reserve Banks of Chicago, Boston, and Kansas City, \
     respectively Selection of Committee Officer By unanimous vote, the Committee selected Mark E. \
     Van Der Weide to serve as general counsel, effective at the time he becomes the Board of \
     Governors' general counsel, until the selection of his successor at the first regularly \
     scheduled meeting of the Committee in 2027.\n\
     \n\
     Developments in Financial Markets. The manager reviewed developments in domestic and foreign \
     financial markets. Market participants generally interpreted the information on reinvestment \
     policy provided in June as consistent with expectations. Financing conditions for \
     nonfinancial businesses and households generally remained supportive of growth in spending. \
     Domestic financial market conditions remained generally accommodative over the intermeeting \
     period.\n"
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vote_run_on_from_the_attendance_list_answers_who_was_selected() {
    let a = common::ask_of_document(
        "run-in-vote",
        "2026-07-26_minutes.md",
        &minutes(),
        "Whom did the FOMC select as general counsel at its July 2026 meeting?",
    )
    .await
    .answer;
    assert!(
        a.starts_with("By unanimous vote, the Committee selected Mark E. Van Der Weide"),
        "{a}"
    );
    // The attendance list is not quoted with it.
    assert!(!a.contains("PRESENT"), "{a}");
}
