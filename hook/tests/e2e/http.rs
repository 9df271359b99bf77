//! The HTTP/1.1 the loopback mocks of the model APIs read: a request line, headers, and a body
//! sized by `Content-Length` or sent in chunks. Shared by the four end-to-end suites' mocks.
#![allow(dead_code)]

use std::io::{self, BufRead};

/// One request as read off the connection.
pub struct Request {
    pub method: String,
    pub path: String,
    /// Names in lower case, values trimmed, in the order sent.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Read one request; `None` when the connection closed before one began. A body over
/// `max_body` bytes is an error.
pub fn read_request(reader: &mut impl BufRead, max_body: usize) -> io::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad request line",
        ));
    };
    let (method, path) = (method.to_owned(), path.to_owned());
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let mut request = Request {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    let too_big = || io::Error::new(io::ErrorKind::InvalidData, "request body too large");
    if request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
    {
        request.body = read_chunked(reader, max_body)?;
    } else if let Some(length) = request
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok())
    {
        if length > max_body {
            return Err(too_big());
        }
        request.body = vec![0; length];
        reader.read_exact(&mut request.body)?;
    }
    Ok(Some(request))
}

fn read_chunked(reader: &mut impl BufRead, max_body: usize) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let size_text = line.trim().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad chunk size"))?;
        if size == 0 {
            // Trailers, then the blank line.
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > max_body {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request body too large",
            ));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        line.clear();
        reader.read_line(&mut line)?; // the CRLF after the chunk
    }
}

/// The path without its query.
pub fn route(path: &str) -> &str {
    path.split('?').next().unwrap_or(path)
}

/// A server on `127.0.0.1` (an ephemeral port, never another interface) that hands each
/// connection to `handle` on its own thread, with read and write timeouts set, until it is
/// dropped or its lifetime runs out (a safety net if a test never drops it).
pub struct Server {
    addr: std::net::SocketAddr,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    acceptor: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    pub fn start(
        name: &str,
        lifetime: std::time::Duration,
        io_timeout: std::time::Duration,
        handle: impl Fn(std::net::TcpStream) + Send + Sync + 'static,
    ) -> io::Result<Server> {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::time::{Duration, Instant};
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let handle = Arc::new(handle);
        let acceptor = {
            let stop = Arc::clone(&stop);
            let connection = format!("{name}-conn");
            std::thread::Builder::new()
                .name(name.to_owned())
                .spawn(move || {
                    let deadline = Instant::now() + lifetime;
                    while !stop.load(Ordering::SeqCst) && Instant::now() < deadline {
                        let Ok((stream, _)) = listener.accept() else {
                            std::thread::sleep(Duration::from_millis(5));
                            continue;
                        };
                        let handle = Arc::clone(&handle);
                        // A connection thread is bounded by `io_timeout` on every read and write.
                        let _ =
                            std::thread::Builder::new()
                                .name(connection.clone())
                                .spawn(move || {
                                    let ready = stream.set_nonblocking(false).and_then(|()| {
                                        stream.set_read_timeout(Some(io_timeout))?;
                                        stream.set_write_timeout(Some(io_timeout))
                                    });
                                    if ready.is_ok() {
                                        handle(stream);
                                    }
                                });
                    }
                })?
        };
        Ok(Server {
            addr,
            stop,
            acceptor: Some(acceptor),
        })
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}
