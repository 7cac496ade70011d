package s3file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/strait-dev/strait/connectors/file"
)

// FS is a bucket seen as a file system: a path /a/b/c is the object a/b/c, a directory is
// the objects under its name and a slash (and the empty marker object of that name that
// Hadoop's S3A writes for an empty directory). It is what LocalFile's core reads and writes
// through, so S3File is LocalFile on a bucket.
type FS struct {
	client   *s3.Client
	bucket   string
	partSize int64 // multipart part size of uploads
	// copyAtOnce is the largest object a rename copies in one request; larger ones are
	// copied in parts of copyPart bytes.
	copyAtOnce, copyPart int64
	ctx                  context.Context
}

var _ file.FileSystem = (*FS)(nil)

// maxSingleCopy is the largest object S3 copies in one CopyObject; copyPartSize is the
// smallest part a copy of a larger one is made of (the upload part size when larger).
const (
	maxSingleCopy = 5 << 30
	copyPartSize  = 512 << 20
	maxParts      = 10_000
	deleteBatch   = 1000
)

func (f *FS) where(p string) string { return "s3a://" + f.bucket + p }

// key is the object name of a clean absolute path ("" for the bucket's root).
func key(p string) string { return strings.TrimPrefix(p, "/") }

// dirPrefix is the prefix of the objects below the directory p.
func dirPrefix(p string) string {
	if k := key(p); k != "" {
		return k + "/"
	}
	return ""
}

// Abs takes a path option, /a/b, a/b or s3a://bucket/a/b (the bucket of the URI is the
// configured one), and cleans it.
func (f *FS) Abs(p string) string {
	if i := strings.Index(p, "://"); i >= 0 {
		rest := p[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			p = rest[j:]
		} else {
			p = "/"
		}
	}
	return path.Clean("/" + p)
}

func notExist(op, p string) error {
	return &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
}

// Stat is the object at p, else the directory when objects lie below p.
func (f *FS) Stat(p string) (file.Entry, error) {
	name := path.Base(p)
	k := key(p)
	if k == "" {
		return file.Entry{Name: "/", Dir: true}, nil
	}
	head, err := f.client.HeadObject(f.ctx, &s3.HeadObjectInput{Bucket: &f.bucket, Key: &k})
	if err == nil {
		e := file.Entry{Name: name, Size: aws.ToInt64(head.ContentLength)}
		if head.LastModified != nil {
			e.MTime = head.LastModified.UnixNano()
		}
		return e, nil
	}
	if !isNotFound(err) {
		return file.Entry{}, fmt.Errorf("stat %s: %w", f.where(p), err)
	}
	out, err := f.client.ListObjectsV2(f.ctx, &s3.ListObjectsV2Input{Bucket: &f.bucket, Prefix: aws.String(k + "/"), MaxKeys: aws.Int32(1)})
	if err != nil {
		return file.Entry{}, fmt.Errorf("stat %s: %w", f.where(p), err)
	}
	if len(out.Contents) == 0 {
		return file.Entry{}, notExist("stat", f.where(p))
	}
	return file.Entry{Name: name, Dir: true}, nil
}

// Walk visits the object p, or every object below the directory p in key order (directory
// markers are not files).
func (f *FS) Walk(root string, visit func(p string, size int64) bool) error {
	e, err := f.Stat(root)
	if err != nil {
		return err
	}
	if !e.Dir {
		visit(root, e.Size)
		return nil
	}
	return f.eachObject(root, func(o types.Object) bool {
		k := aws.ToString(o.Key)
		return strings.HasSuffix(k, "/") || visit("/"+k, aws.ToInt64(o.Size))
	})
}

// eachObject calls fn with every object below the directory p, in key order, until fn
// returns false.
func (f *FS) eachObject(p string, fn func(o types.Object) bool) error {
	pages := s3.NewListObjectsV2Paginator(f.client, &s3.ListObjectsV2Input{Bucket: &f.bucket, Prefix: aws.String(dirPrefix(p))})
	for pages.HasMorePages() {
		page, err := pages.NextPage(f.ctx)
		if err != nil {
			return fmt.Errorf("list %s: %w", f.where(p), err)
		}
		for _, o := range page.Contents {
			if !fn(o) {
				return nil
			}
		}
	}
	return nil
}

// ReadDir lists the objects and the directories directly below dir.
func (f *FS) ReadDir(dir string) ([]file.Entry, error) {
	prefix := dirPrefix(dir)
	var out []file.Entry
	found := false
	pages := s3.NewListObjectsV2Paginator(f.client, &s3.ListObjectsV2Input{Bucket: &f.bucket, Prefix: &prefix, Delimiter: aws.String("/")})
	for pages.HasMorePages() {
		page, err := pages.NextPage(f.ctx)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", f.where(dir), err)
		}
		for _, cp := range page.CommonPrefixes {
			found = true
			name := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), prefix), "/")
			out = append(out, file.Entry{Name: name, Dir: true})
		}
		for _, o := range page.Contents {
			found = true
			k := aws.ToString(o.Key)
			if k == prefix {
				continue // the directory's own marker
			}
			e := file.Entry{Name: strings.TrimPrefix(k, prefix), Size: aws.ToInt64(o.Size)}
			if o.LastModified != nil {
				e.MTime = o.LastModified.UnixNano()
			}
			out = append(out, e)
		}
	}
	if !found && prefix != "" {
		return nil, notExist("list", f.where(dir))
	}
	sortEntries(out)
	return out, nil
}

// Open reads the object p with ranged GETs.
func (f *FS) Open(p string) (file.ReadFile, error) {
	k := key(p)
	head, err := f.client.HeadObject(f.ctx, &s3.HeadObjectInput{Bucket: &f.bucket, Key: &k})
	if err != nil {
		if isNotFound(err) {
			return nil, notExist("open", f.where(p))
		}
		return nil, fmt.Errorf("open %s: %w", f.where(p), err)
	}
	return &object{fs: f, key: k, size: aws.ToInt64(head.ContentLength)}, nil
}

// Create starts the upload of the object p: parts go up while it is written.
func (f *FS) Create(p string) (file.WriteFile, error) {
	return &upload{fs: f, key: key(p)}, nil
}

// Rename copies the object on the server and deletes the source. The copy is whole before
// it is visible under its new name, so a target that exists is complete.
func (f *FS) Rename(from, to string) error {
	fk, tk := key(from), key(to)
	head, err := f.client.HeadObject(f.ctx, &s3.HeadObjectInput{Bucket: &f.bucket, Key: &fk})
	if err != nil {
		if isNotFound(err) {
			return notExist("rename", f.where(from))
		}
		return fmt.Errorf("rename %s: %w", f.where(from), err)
	}
	src := f.bucket + "/" + escapeKey(fk)
	if size := aws.ToInt64(head.ContentLength); size > f.copyAtOnce {
		err = f.copyParts(src, tk, size)
	} else {
		_, err = f.client.CopyObject(f.ctx, &s3.CopyObjectInput{Bucket: &f.bucket, Key: &tk, CopySource: &src})
	}
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", f.where(from), f.where(to), err)
	}
	if _, err := f.client.DeleteObject(f.ctx, &s3.DeleteObjectInput{Bucket: &f.bucket, Key: &fk}); err != nil {
		return fmt.Errorf("delete %s: %w", f.where(from), err)
	}
	return nil
}

// copyParts copies an object larger than one CopyObject takes, part by part.
func (f *FS) copyParts(src, to string, size int64) error {
	mp, err := f.client.CreateMultipartUpload(f.ctx, &s3.CreateMultipartUploadInput{Bucket: &f.bucket, Key: &to})
	if err != nil {
		return err
	}
	part := max(f.copyPart, (size+maxParts-1)/maxParts) // S3 takes at most 10,000 parts
	var parts []types.CompletedPart
	for off, n := int64(0), int32(1); off < size; off, n = off+part, n+1 {
		end := min(off+part, size) - 1
		out, err := f.client.UploadPartCopy(f.ctx, &s3.UploadPartCopyInput{Bucket: &f.bucket, Key: &to, UploadId: mp.UploadId,
			PartNumber: aws.Int32(n), CopySource: &src, CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", off, end))})
		if err != nil {
			f.abortUpload(to, mp.UploadId)
			return err
		}
		parts = append(parts, types.CompletedPart{ETag: out.CopyPartResult.ETag, PartNumber: aws.Int32(n)})
	}
	_, err = f.client.CompleteMultipartUpload(f.ctx, &s3.CompleteMultipartUploadInput{Bucket: &f.bucket, Key: &to, UploadId: mp.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		f.abortUpload(to, mp.UploadId)
	}
	return err
}

func (f *FS) abortUpload(k string, id *string) {
	_, _ = f.client.AbortMultipartUpload(context.WithoutCancel(f.ctx), &s3.AbortMultipartUploadInput{Bucket: &f.bucket, Key: &k, UploadId: id})
}

// Remove deletes the object p, or the empty directory p (its marker); a directory that
// still holds objects is an error, as for a local directory.
func (f *FS) Remove(p string) error {
	k := key(p)
	if k == "" {
		return fmt.Errorf("remove %s: the bucket's root", f.where(p))
	}
	out, err := f.client.ListObjectsV2(f.ctx, &s3.ListObjectsV2Input{Bucket: &f.bucket, Prefix: aws.String(k + "/"), MaxKeys: aws.Int32(2)})
	if err != nil {
		return fmt.Errorf("remove %s: %w", f.where(p), err)
	}
	for _, o := range out.Contents {
		if aws.ToString(o.Key) != k+"/" {
			return fmt.Errorf("remove %s: the directory is not empty", f.where(p))
		}
	}
	return f.deleteKeys([]string{k, k + "/"})
}

// RemoveAll deletes the object p and every object below p.
func (f *FS) RemoveAll(p string) error {
	keys := []string{}
	if k := key(p); k != "" {
		keys = append(keys, k)
	}
	err := f.eachObject(p, func(o types.Object) bool {
		keys = append(keys, aws.ToString(o.Key))
		return true
	})
	if err != nil {
		return err
	}
	return f.deleteKeys(keys)
}

func (f *FS) deleteKeys(keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), deleteBatch)
		ids := make([]types.ObjectIdentifier, n)
		for i, k := range keys[:n] {
			ids[i] = types.ObjectIdentifier{Key: aws.String(k)}
		}
		out, err := f.client.DeleteObjects(f.ctx, &s3.DeleteObjectsInput{Bucket: &f.bucket,
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return fmt.Errorf("delete in s3a://%s: %w", f.bucket, err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("delete s3a://%s/%s: %s %s", f.bucket, aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
		}
		keys = keys[n:]
	}
	return nil
}

// MkdirAll writes the directory's marker, an empty object named for it and a slash, as
// Hadoop's S3A does, so an empty directory exists; a directory with objects exists anyway.
func (f *FS) MkdirAll(p string) error {
	k := dirPrefix(p)
	if k == "" {
		return nil
	}
	_, err := f.client.PutObject(f.ctx, &s3.PutObjectInput{Bucket: &f.bucket, Key: &k, Body: bytes.NewReader(nil), ContentLength: aws.Int64(0)})
	if err != nil {
		return fmt.Errorf("create %s: %w", f.where(p), err)
	}
	return nil
}

// escapeKey is a key as a copy source names it: URL-escaped, slashes kept.
func escapeKey(k string) string {
	parts := strings.Split(k, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func isNotFound(err error) bool {
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	if errors.As(err, &nsk) || errors.As(err, &nf) {
		return true
	}
	var api smithy.APIError
	if errors.As(err, &api) && (api.ErrorCode() == "NoSuchKey" || api.ErrorCode() == "NotFound") {
		return true
	}
	var re interface{ HTTPStatusCode() int }
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound
}

// object reads an object with ranged GETs: a read at the position of the open response
// continues it, any other opens a range from there of at least readAhead bytes, so
// sequential reads stream and random ones (parquet's footer and column chunks) fetch what
// they need. Memory is that of one response's buffers, whatever the object's size.
type object struct {
	mu   sync.Mutex
	fs   *FS
	key  string
	size int64
	body io.ReadCloser
	pos  int64 // the offset the body reads next
	end  int64 // the offset the body ends at
}

const (
	readAhead = 8 << 20
	// skipAhead is the largest gap a read skips on the open response rather than opening
	// another
	skipAhead = 256 << 10
	// readAttempts bounds the reopening of a response that broke off
	readAttempts = 3
)

func (o *object) Size() int64 { return o.size }

func (o *object) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", o.fs.where("/"+o.key), off)
	}
	if off >= o.size {
		return 0, io.EOF
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	want := int(min(int64(len(p)), o.size-off))
	n, failures := 0, 0
	for n < want {
		at := off + int64(n)
		if err := o.position(at, int64(want-n)); err != nil {
			return n, err
		}
		m, err := io.ReadFull(o.body, p[n:n+min(want-n, int(o.end-at))])
		n += m
		o.pos += int64(m)
		if err != nil {
			o.closeBody()
			if failures++; failures >= readAttempts {
				return n, fmt.Errorf("read %s at byte %d: %w", o.fs.where("/"+o.key), o.pos, err)
			}
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// position makes the open response read from at, opening one when needed.
func (o *object) position(at, need int64) error {
	if o.body != nil && at >= o.pos && at-o.pos <= skipAhead && at < o.end {
		if gap := at - o.pos; gap > 0 {
			if _, err := io.CopyN(io.Discard, o.body, gap); err != nil {
				o.closeBody()
			} else {
				o.pos = at
			}
		}
		if o.body != nil && o.pos == at {
			return nil
		}
	}
	o.closeBody()
	end := min(o.size, at+max(need, readAhead))
	out, err := o.fs.client.GetObject(o.fs.ctx, &s3.GetObjectInput{Bucket: &o.fs.bucket, Key: &o.key,
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", at, end-1))})
	if err != nil {
		return fmt.Errorf("read %s at byte %d: %w", o.fs.where("/"+o.key), at, err)
	}
	o.body, o.pos, o.end = out.Body, at, end
	return nil
}

func (o *object) closeBody() {
	if o.body != nil {
		o.body.Close()
		o.body = nil
	}
}

func (o *object) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closeBody()
	return nil
}

func sortEntries(es []file.Entry) {
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
}
