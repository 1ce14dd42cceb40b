//! Time left for embedding, from the rate so far. Work is measured in text length (what the
//! model's cost follows), not in chunks: chunks are embedded longest first, so counting chunks
//! would overestimate at the start and underestimate at the end.

use std::time::{Duration, Instant};

pub struct Eta {
    started: Instant,
    total: usize,
    done: usize,
}

impl Eta {
    pub fn new(total_work: usize) -> Self {
        Eta {
            started: Instant::now(),
            total: total_work,
            done: 0,
        }
    }

    pub fn advance(&mut self, work: usize) {
        self.done = (self.done + work).min(self.total);
    }

    /// `None` until some work is done (no rate yet).
    pub fn remaining(&self) -> Option<Duration> {
        estimate(self.started.elapsed(), self.done, self.total)
    }
}

fn estimate(elapsed: Duration, done: usize, total: usize) -> Option<Duration> {
    if done == 0 {
        return None;
    }
    let left = total.saturating_sub(done) as f64;
    Duration::try_from_secs_f64(elapsed.as_secs_f64() * left / done as f64).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_scales_the_time_so_far_by_the_work_left() {
        let ten = Duration::from_secs(10);
        assert_eq!(estimate(ten, 0, 100), None);
        assert_eq!(estimate(ten, 25, 100), Some(Duration::from_secs(30)));
        assert_eq!(estimate(ten, 100, 100), Some(Duration::ZERO));
        assert_eq!(estimate(ten, 150, 100), Some(Duration::ZERO));
    }
}
