package file

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	jsonformat "github.com/strait-dev/strait/connectors/internal/format/json"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// writerState is a writer's snapshot: its staging identity, the next transaction's
// checkpoint id and the prepared transactions it has not yet seen committed.
type writerState struct {
	UUIDPrefix     string       `json:"uuid_prefix"`
	StagingDir     string       `json:"staging_dir"`
	NextCheckpoint int64        `json:"next_checkpoint"`
	Pending        []commitInfo `json:"pending,omitempty"`
}

// openFile is a staged file being written.
type openFile struct {
	f      WriteFile
	w      *bufio.Writer
	staged string
	final  string
	first  bool          // no row written yet: the next row needs no row delimiter before it
	rec    format.Writer // the writer of a record format (parquet, excel), else nil
	enc    []io.Closer   // the compressor and the encoder between w and f, innermost first
}

// writer stages the rows of one subtask. Each transaction, T_<jobId>_<uuidPrefix>_<subtask>_<checkpointId>
// as SeaTunnel names it (file names carry it), writes into its own directory
// <tmp_path>/seatunnel/<jobId>/<uuidPrefix>/<transaction>_e<epoch>: the epoch is the
// pipeline's attempt, so a writer of an attempt given up never stages into the directory of
// the attempt that replaced it, nor re-creates one that was committed;
// PrepareCommit closes its files and returns the moves that publish them; the next
// transaction starts with the next checkpoint id.
type writer struct {
	cfg        *sinkConfig
	jobID      string
	subtask    int
	epoch      int
	uuid       string
	stagingDir string // <tmpRoot>/<jobId>/<uuidPrefix>
	width      int    // fields an input row has

	txnCP  int64
	txnID  string
	txnDir string
	moves  []move
	dirs   map[string]bool // staging directories of the current transaction
	single *openFile       // the open file when the sink is not partitioned
	files  map[string]*openFile
	rows   int64 // rows written to the current part
	partID int64
	key    []byte
	name   []byte

	pending []commitInfo
	bins    map[string]*binaryFile // binary: the files being written, by relativePath
	err     error                  // a failed writer stays failed
	now     func() time.Time
}

// CreateWriter makes the writer of one subtask. Restored from states, it first finishes
// what the snapshot left: it commits the prepared transactions the snapshot lists (commits
// are idempotent) and deletes every other transaction it had staged, then carries on with
// the next checkpoint id.
func (s *Sink) CreateWriter(ctx connector.WriterContext, states [][]byte) (connector.Writer, error) {
	w := &writer{
		cfg:     s.cfg,
		jobID:   strconv.FormatInt(ctx.Job.ID, 10),
		subtask: ctx.Index,
		epoch:   ctx.Epoch,
		width:   len(s.cfg.table.Columns),
		files:   map[string]*openFile{},
		dirs:    map[string]bool{},
		now:     time.Now,
	}
	next := int64(1)
	if len(states) > 0 {
		n, err := w.restore(states)
		if err != nil {
			return nil, err
		}
		next = n
	} else {
		u, err := uuidPrefix()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.cfg.where, err)
		}
		w.uuid = u
	}
	w.stagingDir = filepath.Join(s.cfg.tmpRoot, w.jobID, w.uuid)
	w.begin(next)
	return w, nil
}

func (w *writer) restore(states [][]byte) (int64, error) {
	c := &Committer{fs: w.cfg.fs, path: w.cfg.path, tmpRoot: w.cfg.tmpRoot, where: w.cfg.where}
	next := int64(1)
	keep := map[string]bool{}
	var stagingDirs []string
	for i, raw := range states {
		var st writerState
		if err := json.Unmarshal(raw, &st); err != nil {
			return 0, fmt.Errorf("%s: bad writer state: %v", w.cfg.where, err)
		}
		if !validUUIDPrefix(st.UUIDPrefix) {
			return 0, fmt.Errorf("%s: bad writer state: uuid prefix %q", w.cfg.where, st.UUIDPrefix)
		}
		if i == 0 {
			w.uuid = st.UUIDPrefix
		}
		next = max(next, st.NextCheckpoint)
		sd := filepath.Clean(st.StagingDir)
		if st.StagingDir != "" && within(sd, w.cfg.tmpRoot) && sd != w.cfg.tmpRoot {
			stagingDirs = append(stagingDirs, sd)
		}
		for j := range st.Pending {
			info := st.Pending[j]
			if err := c.check(&info); err != nil {
				return 0, err
			}
			keep[info.TransactionDir] = true
			if _, err := w.cfg.fs.Stat(info.TransactionDir); errors.Is(err, fs.ErrNotExist) {
				continue // committed since the snapshot
			}
			if err := c.commit(context.Background(), &info); err != nil {
				return 0, fmt.Errorf("%s: restore: %w", w.cfg.where, err)
			}
		}
	}
	// whatever else was staged there was written after the snapshot: nobody commits it
	for _, sd := range stagingDirs {
		entries, err := w.cfg.fs.ReadDir(sd)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return 0, fmt.Errorf("%s: restore: list %s: %w", w.cfg.where, sd, err)
		}
		for _, e := range entries {
			p := filepath.Join(sd, e.Name)
			if keep[p] || !strings.HasPrefix(e.Name, "T_") {
				continue
			}
			if err := w.cfg.fs.RemoveAll(p); err != nil {
				return 0, fmt.Errorf("%s: restore: abort %s: %w", w.cfg.where, p, err)
			}
		}
	}
	return next, nil
}

// begin starts the transaction of checkpoint cp.
func (w *writer) begin(cp int64) {
	w.txnCP = cp
	w.txnID = "T_" + w.jobID + "_" + w.uuid + "_" + strconv.Itoa(w.subtask) + "_" + strconv.FormatInt(cp, 10)
	w.txnDir = filepath.Join(w.stagingDir, w.txnID+"_e"+strconv.Itoa(w.epoch))
	w.moves = nil
	clear(w.dirs)
	w.rows = 0
}

func (w *writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// Write appends the batch's rows to the transaction's files.
func (w *writer) Write(_ context.Context, b *row.Batch) (err error) {
	if w.err != nil {
		return w.err
	}
	defer func() {
		if r := recover(); r != nil {
			err = w.fail(fmt.Errorf("%s: write: internal error: %v", w.cfg.where, r))
		}
	}()
	cfg := w.cfg
	for i := range b.Rows {
		r := &b.Rows[i]
		if len(r.Fields) < w.width {
			return w.fail(fmt.Errorf("%s: row of table %s has %d fields, the table has %d columns", cfg.where, r.Table, len(r.Fields), w.width))
		}
		if cfg.format == formatBinary {
			if err := w.writeBinary(r); err != nil {
				return w.fail(err)
			}
			continue
		}
		if w.rows >= cfg.batchSize {
			if err := w.roll(); err != nil {
				return w.fail(err)
			}
		}
		w.rows++
		of := w.single
		if of == nil {
			if of, err = w.fileFor(r); err != nil {
				return w.fail(err)
			}
		}
		if of.rec != nil {
			if err := of.rec.Write(r); err != nil {
				return w.fail(fmt.Errorf("%s: write %s: %w", cfg.where, of.staged, err))
			}
			continue
		}
		buf := of.w.AvailableBuffer()
		if of.first {
			of.first = false
		} else {
			buf = append(buf, cfg.rowDelim...)
		}
		if cfg.format == formatJSON {
			for j, col := range cfg.sinkCols {
				buf = append(buf, cfg.jsonKeys[j]...)
				buf = jsonformat.AppendValue(buf, &r.Fields[col], &cfg.sinkTypes[j])
			}
			buf = append(buf, '}')
		} else {
			for j, col := range cfg.sinkCols {
				if j > 0 {
					buf = append(buf, cfg.fieldDelim...)
				}
				buf = cfg.textEnc.AppendValue(buf, &r.Fields[col], 0)
			}
		}
		if _, err := of.w.Write(buf); err != nil {
			return w.fail(fmt.Errorf("%s: write %s: %w", cfg.where, of.staged, err))
		}
	}
	if cfg.records != nil {
		return w.endRecordBatch()
	}
	return nil
}

// fileFor returns the open file of the row's partition, opening it if needed.
func (w *writer) fileFor(r *row.Row) (*openFile, error) {
	cfg := w.cfg
	if len(cfg.partCols) == 0 {
		of, err := w.open("")
		if err != nil {
			return nil, err
		}
		w.single = of
		return of, nil
	}
	w.key = w.partitionDir(w.key[:0], r)
	if of := w.files[string(w.key)]; of != nil {
		return of, nil
	}
	dir := string(w.key)
	clean := filepath.Clean(filepath.Join(cfg.path, dir))
	if dir == "" || strings.Contains(dir, "\x00") || clean == cfg.path || !within(clean, cfg.path) || hasDotDot(dir) {
		return nil, fmt.Errorf("%s: partition directory %q of a row of table %s is not a directory inside %s", cfg.where, dir, r.Table, cfg.path)
	}
	of, err := w.open(dir)
	if err != nil {
		return nil, err
	}
	w.files[dir] = of
	return of, nil
}

func hasDotDot(dir string) bool {
	for _, seg := range strings.Split(filepath.ToSlash(dir), "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// partitionDir appends the row's partition directory: k0=v0/k1=v1 by default, else
// partition_dir_expression with ${kN} and ${vN} substituted.
func (w *writer) partitionDir(b []byte, r *row.Row) []byte {
	cfg := w.cfg
	if cfg.partExpr == "" {
		for i, col := range cfg.partCols {
			if i > 0 {
				b = append(b, '/')
			}
			b = append(b, cfg.partNames[i]...)
			b = append(b, '=')
			b = appendPartitionValue(b, r.Fields[col])
		}
		return b
	}
	var vals [8]string
	values := vals[:0]
	for _, col := range cfg.partCols {
		values = append(values, string(appendPartitionValue(nil, r.Fields[col])))
	}
	return substitute(b, cfg.partExpr, func(name string) (string, bool) {
		if len(name) < 2 || (name[0] != 'k' && name[0] != 'v') {
			return "", false
		}
		i, err := strconv.Atoi(name[1:])
		if err != nil || i < 0 || i >= len(values) {
			return "", false
		}
		if name[0] == 'k' {
			return cfg.partNames[i], true
		}
		return values[i], true
	})
}

// appendPartitionValue writes a partition value as Java's toString does; null as "null".
func appendPartitionValue(b []byte, v row.Value) []byte {
	if v.T == types.Decimal {
		return row.AppendJavaDecimal(b, v)
	}
	return row.AppendText(b, v)
}

// fileName expands file_name_expression and appends _<partIndex><suffix>.
func (w *writer) fileName() (string, error) {
	cfg := w.cfg
	var now []byte
	nowText := func() string {
		if now == nil {
			now = cfg.timeFormat.AppendZoned(make([]byte, 0, 32), w.now())
		}
		return string(now)
	}
	var err error
	w.name = substitute(w.name[:0], cfg.nameExpr, func(name string) (string, bool) {
		switch name {
		case transactionExpression:
			return w.txnID, true
		case "now", cfg.timeFmtText:
			return nowText(), true
		case "uuid":
			u, e := newUUID()
			if e != nil {
				err = e
			}
			return u, true
		}
		return "", false
	})
	if err != nil {
		return "", err
	}
	w.name = append(w.name, '_')
	w.name = strconv.AppendInt(w.name, w.partID, 10)
	w.name = append(w.name, cfg.fileSuffix()...)
	return string(w.name), nil
}

// open creates the staged file of a partition directory ("" when not partitioned).
func (w *writer) open(partDir string) (*openFile, error) {
	cfg := w.cfg
	name, err := w.fileName()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.where, err)
	}
	sub := partDir
	if sub == "" {
		sub = nonPartitionDir
	}
	dir := filepath.Join(w.txnDir, sub)
	if !w.dirs[dir] {
		if err := mkdirAll(cfg.fs, dir); err != nil {
			return nil, fmt.Errorf("%s: create staging directory: %w", cfg.where, err)
		}
		w.dirs[dir] = true
	}
	of := &openFile{staged: filepath.Join(dir, name), final: filepath.Join(cfg.path, partDir, name), first: true}
	if of.f, err = cfg.fs.Create(of.staged); err != nil {
		return nil, fmt.Errorf("%s: create %s: %w", cfg.where, of.staged, err)
	}
	enc, err := w.encoded(of)
	if err != nil {
		of.f.Abort()
		return nil, fmt.Errorf("%s: %s: %w", cfg.where, of.staged, err)
	}
	of.w = bufio.NewWriterSize(enc, writeBufferSize)
	if cfg.records != nil {
		if of.rec, err = cfg.records.Create(of.w, of.staged); err != nil {
			of.f.Abort()
			return nil, fmt.Errorf("%s: %s: %w", cfg.where, of.staged, err)
		}
		return of, nil
	}
	if cfg.header != nil {
		if _, err := of.w.Write(cfg.header); err != nil {
			of.f.Abort()
			return nil, fmt.Errorf("%s: write %s: %w", cfg.where, of.staged, err)
		}
	}
	return of, nil
}

// finish flushes, syncs and closes a staged file and records its move.
func (w *writer) finish(of *openFile) error {
	var err error
	if of.rec != nil {
		err = of.rec.Close()
		of.rec = nil
	}
	if err == nil {
		err = of.w.Flush()
	}
	for i := len(of.enc) - 1; i >= 0 && err == nil; i-- {
		err = of.enc[i].Close()
	}
	if err == nil {
		err = of.f.Close() // durable, or an error
	} else {
		of.f.Abort()
	}
	if err != nil {
		return fmt.Errorf("%s: close %s: %w", w.cfg.where, of.staged, err)
	}
	w.moves = append(w.moves, move{From: of.staged, To: of.final})
	return nil
}

// finishAll finishes every open file.
func (w *writer) finishAll() error {
	first := w.finishBinary()
	if w.single != nil {
		first = errors.Join(first, w.finish(w.single))
		w.single = nil
	}
	if len(w.files) > 0 {
		// in a stable order, so commit infos list files the same way every time
		keys := make([]string, 0, len(w.files))
		for k := range w.files {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := w.finish(w.files[k]); err != nil && first == nil {
				first = err
			}
		}
		clear(w.files)
	}
	return first
}

// roll closes the current part files after batch_size rows; the next rows go to new files.
func (w *writer) roll() error {
	if err := w.finishAll(); err != nil {
		return err
	}
	w.partID++
	w.rows = 0
	return nil
}

// PrepareCommit closes the transaction's files, syncs them and their directories, and
// returns the moves that publish them (nil when nothing was written); the next rows go
// to the transaction of the next checkpoint.
func (w *writer) PrepareCommit(_ context.Context, checkpointID int64) ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if err := w.finishAll(); err != nil {
		return nil, w.fail(err)
	}
	var out []byte
	if len(w.moves) > 0 {
		synced := map[string]bool{}
		for dir := range w.dirs {
			for d := dir; within(d, w.stagingDir) && !synced[d]; d = filepath.Dir(d) {
				syncDir(w.cfg.fs, d)
				synced[d] = true
			}
		}
		syncDir(w.cfg.fs, filepath.Dir(w.stagingDir))
		info := commitInfo{TransactionID: w.txnID, TransactionDir: w.txnDir, Moves: w.moves}
		b, err := json.Marshal(info)
		if err != nil {
			return nil, w.fail(fmt.Errorf("%s: %w", w.cfg.where, err))
		}
		out = b
		w.pending = append(w.pending, info)
	}
	w.begin(max(w.txnCP+1, checkpointID+1))
	return out, nil
}

// SnapshotState records the staging identity and the prepared transactions not committed
// yet (a committed transaction's staging directory is gone).
func (w *writer) SnapshotState(int64) ([]byte, error) {
	kept := w.pending[:0]
	for _, info := range w.pending {
		if _, err := w.cfg.fs.Stat(info.TransactionDir); err == nil {
			kept = append(kept, info)
		}
	}
	clear(w.pending[len(kept):])
	w.pending = kept
	return json.Marshal(writerState{UUIDPrefix: w.uuid, StagingDir: w.stagingDir, NextCheckpoint: w.txnCP, Pending: w.pending})
}

// Close releases the open files and deletes the transaction that was never prepared.
func (w *writer) Close(context.Context) error {
	w.closeBinary()
	if w.single != nil {
		w.single.f.Abort()
		w.single = nil
	}
	for k, of := range w.files {
		of.f.Abort()
		delete(w.files, k)
	}
	err := w.cfg.fs.RemoveAll(w.txnDir)
	removeEmptyParents(w.cfg.fs, w.txnDir, w.cfg.tmpRoot)
	if err != nil {
		return fmt.Errorf("%s: remove unprepared transaction %s: %w", w.cfg.where, w.txnID, err)
	}
	return nil
}

// uuidPrefix is ten random hex digits, as SeaTunnel names a writer's staging directory.
func uuidPrefix() (string, error) {
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func validUUIDPrefix(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// newUUID returns a random (version 4) UUID in its usual text form.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:]), nil
}
