-- wrk script for the harness: sets the request from the environment and prints a JSON
-- summary to stderr when wrk finishes (wrk's text report stays on stdout).
-- Deliberately no response() function: defining one makes wrk slower for every request.
--
--   BENCH_METHOD        request method (default GET)
--   BENCH_CONTENT_TYPE  Content-Type header, when there is a body
--   BENCH_BODY_FILE     file holding the request body

local method = os.getenv("BENCH_METHOD")
if method and method ~= "" then wrk.method = method end

local content_type = os.getenv("BENCH_CONTENT_TYPE")
if content_type and content_type ~= "" then wrk.headers["Content-Type"] = content_type end

local body_file = os.getenv("BENCH_BODY_FILE")
if body_file and body_file ~= "" then
  local f = assert(io.open(body_file, "rb"))
  wrk.body = f:read("*a")
  f:close()
end

function done(summary, latency, requests)
  local e = summary.errors
  io.stderr:write(string.format(
    '{"wrkJson":1,"duration_us":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"max":%d,"mean":%.3f,"stdev":%.3f,' ..
    '"p50":%d,"p90":%d,"p99":%d,"p999":%d}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.max, latency.mean, latency.stdev,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9)))
end
