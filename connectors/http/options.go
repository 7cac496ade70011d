package http

import (
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
)

// The response formats, as SeaTunnel names them.
const (
	formatJSON = "json"
	formatText = "text"
)

// RequestConfig is what the source and the sink share: where to send requests and how
// hard to try.
type RequestConfig struct {
	URL               string            `opt:"url,required" doc:"the request URL"`
	Headers           map[string]string `opt:"headers" doc:"request headers, name = value"`
	Retry             int64             `opt:"retry" default:"0" doc:"how many times a request is tried in all, as SeaTunnel counts it (0 or 1: once); a request is tried again when it cannot be sent, or the server answers 429 or 5xx"`
	RetryMultiplierMS int64             `opt:"retry_backoff_multiplier_ms" default:"100" doc:"the waits between tries grow as this many milliseconds times the Fibonacci numbers (1, 1, 2, 3, 5 ...)"`
	RetryMaxMS        int64             `opt:"retry_backoff_max_ms" default:"10000" doc:"the longest wait between tries, in milliseconds"`
	ConnectTimeoutMS  int64             `opt:"connect_timeout_ms" default:"12000" doc:"how long to wait for a connection, in milliseconds"`
	SocketTimeoutMS   int64             `opt:"socket_timeout_ms" default:"60000" doc:"how long to wait for the answer once connected, in milliseconds"`
}

// Paging is the source's pageing block (SeaTunnel's spelling).
type Paging struct {
	PageField   string `opt:"page_field" default:"page" doc:"the request parameter that carries the page number"`
	TotalPages  int64  `opt:"total_page_size" default:"0" doc:"the number of pages; 0: unknown, reading stops at the first page with fewer than batch_size rows"`
	BatchSize   int64  `opt:"batch_size" default:"100" doc:"with total_page_size unknown, a page with fewer rows than this is the last"`
	StartPage   int64  `opt:"start_page_number" default:"1" doc:"the first page read"`
	Placeholder bool   `opt:"use_placeholder_replacement" default:"false" doc:"write the page number in place of ${page_field} in the url, params, headers and body instead of adding it as a parameter"`
}

// SourceConfig is the Http source's options.
type SourceConfig struct {
	RequestConfig
	Method         string            `opt:"method" default:"GET" enum:"GET,POST" doc:"the request method"`
	Params         map[string]string `opt:"params" doc:"request parameters: the query string of a GET, a form body (application/x-www-form-urlencoded) of a POST"`
	Body           string            `opt:"body" doc:"the body of a POST, sent as application/json (ignored when params are set, as in SeaTunnel)"`
	Format         string            `opt:"format" default:"text" enum:"json,text" doc:"with a schema, json (an object per row, or an array of them); without one, every response is one row of a single string column named content"`
	Schema         *hocon.Value      `opt:"schema" doc:"the fields of a row; needs format = json"`
	ContentField   string            `opt:"content_field" doc:"a JSONPath to the rows inside the response, $.data.* say; each value selected is an object (a row) or an array of them"`
	JSONField      map[string]string `opt:"json_field" doc:"a JSONPath per field, field = path: the i-th row takes the i-th value of every path; all paths must select as many values"`
	Paging         Paging            `opt:"pageing" doc:"read page after page (page_field, total_page_size, batch_size, start_page_number, use_placeholder_replacement)"`
	PollIntervalMS int64             `opt:"poll_interval_millis" default:"0" doc:"in STREAMING mode, the milliseconds between one read of the URL (all its pages) and the next"`
	MultiLines     bool              `opt:"enable_multi_lines" default:"false" doc:"every line of a response is a record of its own"`
	DateFormat     string            `opt:"date_format,noeffect" doc:"accepted for SeaTunnel's configs; dates are read in the layouts SeaTunnel's JSON reader accepts"`
	DatetimeFormat string            `opt:"datetime_format,noeffect" doc:"accepted for SeaTunnel's configs; timestamps are read in the layouts SeaTunnel's JSON reader accepts"`
	TimeFormat     string            `opt:"time_format,noeffect" doc:"accepted for SeaTunnel's configs; times are read in the layouts SeaTunnel's JSON reader accepts"`
	At             *config.Options   `opt:"."`
}

// SinkConfig is the Http sink's options.
type SinkConfig struct {
	RequestConfig
	Params map[string]string `opt:"params" doc:"parameters added to the URL's query string"`
	At     *config.Options   `opt:"."`
}
