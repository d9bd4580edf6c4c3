//! Progress on stderr with indicatif: a spinner that appears only once work has taken about a
//! second (so quick commands print nothing), and bars for the multi-step commands. Both stay
//! hidden with `--quiet` or when stderr is not a terminal.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before its spinner is shown.
const SHOW_AFTER: Duration = Duration::from_millis(800);
const TICK: Duration = Duration::from_millis(100);

#[derive(Clone, Copy, Debug)]
pub struct Progress {
    enabled: bool,
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        Progress {
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }

    /// A spinner with a message, shown after [`SHOW_AFTER`] if the work is still running.
    pub fn spinner(&self, message: impl Into<String>) -> Spinner {
        let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} [{elapsed}]") {
            pb.set_style(style);
        }
        pb.set_message(message.into());
        let finished = Arc::new(Mutex::new(false));
        if self.enabled {
            let (pb, finished) = (pb.clone(), Arc::clone(&finished));
            std::thread::spawn(move || {
                std::thread::sleep(SHOW_AFTER);
                // Holding the lock while showing keeps `finish` from racing us.
                if let Ok(done) = finished.lock() {
                    if !*done {
                        pb.set_draw_target(ProgressDrawTarget::stderr());
                        pb.enable_steady_tick(TICK);
                    }
                }
            });
        }
        Spinner { pb, finished }
    }

    /// A bar over `len` steps, shown at once (for commands that are long by design). The prefix
    /// names the command; the message names the current step.
    pub fn bar(&self, len: u64, message: impl Into<String>) -> ProgressBar {
        let target = if self.enabled {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let pb = ProgressBar::with_draw_target(Some(len), target);
        if let Ok(style) =
            ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} [{elapsed}] {wide_msg}")
        {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_prefix(message.into());
        pb
    }
}

/// A delayed spinner; cleared when finished or dropped.
pub struct Spinner {
    pb: ProgressBar,
    finished: Arc<Mutex<bool>>,
}

impl Spinner {
    pub fn set_message(&self, message: impl Into<String>) {
        self.pb.set_message(message.into());
    }

    pub fn finish(&self) {
        if let Ok(mut done) = self.finished.lock() {
            *done = true;
        }
        self.pb.finish_and_clear();
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.finish();
    }
}
