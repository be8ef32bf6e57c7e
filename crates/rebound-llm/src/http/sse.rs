//! Server-Sent Events: the events of one streamed answer, read with a stall
//! timeout, and [`delta_stream`], which turns them into [`StreamDelta`]s
//! through a provider's [`SseDecoder`].

use std::collections::VecDeque;
use std::pin::Pin;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures_core::Stream;
use futures_util::StreamExt;

use super::HttpClient;
use crate::{DeltaStream, LlmError, StreamDelta};

/// The raw events of a response body.
type RawEvents =
    Pin<Box<dyn Stream<Item = Result<Event, EventStreamError<reqwest::Error>>> + Send>>;

/// The Server-Sent Events of one answer.
pub(crate) struct SseEvents {
    inner: RawEvents,
    client: HttpClient,
}

impl SseEvents {
    /// The events of `response`'s body, read with `client`'s stall timeout
    /// and errors.
    pub(super) fn new(response: reqwest::Response, client: HttpClient) -> Self {
        SseEvents {
            inner: Box::pin(response.bytes_stream().eventsource()),
            client,
        }
    }

    /// The next event; a wait longer than the stall timeout is an error.
    async fn next(&mut self) -> Option<Result<Event, LlmError>> {
        let stall = self.client.options.stall_timeout;
        match tokio::time::timeout(stall, self.inner.next()).await {
            Err(_) => Some(Err(self.client.timeout(stall))),
            Ok(None) => None,
            Ok(Some(Ok(event))) => Some(Ok(event)),
            Ok(Some(Err(EventStreamError::Transport(e)))) => {
                Some(Err(self.client.transport_error(e)))
            }
            Ok(Some(Err(e))) => Some(Err(self.client.malformed(format!("bad event stream: {e}")))),
        }
    }
}

/// Turns one provider's events into [`StreamDelta`]s.
pub(crate) trait SseDecoder: Send + 'static {
    /// The deltas of one event. A [`StreamDelta::Done`] ends the stream.
    fn event(&mut self, event: &Event) -> Result<Vec<StreamDelta>, LlmError>;

    /// The deltas (or the error) when the stream ends without a `Done`.
    fn end(&mut self) -> Result<Vec<StreamDelta>, LlmError>;
}

/// What [`delta_stream`] carries from one item to the next.
struct DecodeState<D> {
    events: SseEvents,
    decoder: D,
    queue: VecDeque<Result<StreamDelta, LlmError>>,
    finished: bool,
}

/// The deltas `decoder` reads from `events`; the stream ends after `Done`
/// or the first error.
pub(crate) fn delta_stream<D: SseDecoder>(events: SseEvents, decoder: D) -> DeltaStream {
    let state = DecodeState {
        events,
        decoder,
        queue: VecDeque::new(),
        finished: false,
    };
    Box::pin(futures_util::stream::unfold(
        state,
        |mut state| async move {
            loop {
                if let Some(item) = state.queue.pop_front() {
                    return Some((item, state));
                }
                if state.finished {
                    return None;
                }
                let decoded = match state.events.next().await {
                    Some(Ok(event)) => state.decoder.event(&event),
                    Some(Err(error)) => Err(error),
                    None => {
                        state.finished = true;
                        state.decoder.end()
                    }
                };
                match decoded {
                    Ok(deltas) => {
                        if deltas.iter().any(|d| matches!(d, StreamDelta::Done { .. })) {
                            state.finished = true;
                        }
                        state.queue.extend(deltas.into_iter().map(Ok));
                    }
                    Err(error) => {
                        state.finished = true;
                        state.queue.push_back(Err(error));
                    }
                }
            }
        },
    ))
}
