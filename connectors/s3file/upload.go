package s3file

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// upload writes an object while its bytes come: each full part goes up (one part in
// flight while the next fills), so a file of any size holds at most two parts in memory.
// A file smaller than one part is one PUT when it closes. Close completes the upload;
// Abort, or a Close that fails, aborts it, so a failed file leaves no object and no parts.
type upload struct {
	fs       *FS
	key      string
	buf      []byte // the part being filled
	spare    []byte // the buffer of the part in flight, reused for the next
	id       *string
	parts    []types.CompletedPart
	inflight chan partResult // the part being uploaded, nil when none
	err      error
}

type partResult struct {
	part types.CompletedPart
	err  error
}

const (
	// minPartSize is S3's smallest part but the last.
	minPartSize = 5 << 20
	// firstBuffer is the buffer a file starts with; it doubles up to the part size
	firstBuffer = 64 << 10
)

func (u *upload) Write(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	n := 0
	part := int(u.fs.partSize)
	for len(p) > 0 {
		c := min(part-len(u.buf), len(p))
		u.grow(c)
		u.buf = append(u.buf, p[:c]...)
		p, n = p[c:], n+c
		if len(u.buf) == part {
			if err := u.sendPart(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// grow makes room for n more bytes in the part being filled: a small file never holds a
// whole part's buffer, and no buffer grows past the part size.
func (u *upload) grow(n int) {
	if len(u.buf)+n <= cap(u.buf) {
		return
	}
	c := min(max(2*cap(u.buf), len(u.buf)+n, firstBuffer), int(u.fs.partSize))
	b := make([]byte, len(u.buf), c)
	copy(b, u.buf)
	u.buf = b
}

// sendPart starts the upload of the full buffer as the next part, after the one in
// flight is done.
func (u *upload) sendPart() error {
	if err := u.wait(); err != nil {
		return err
	}
	if u.id == nil {
		out, err := u.fs.client.CreateMultipartUpload(u.fs.ctx, &s3.CreateMultipartUploadInput{Bucket: &u.fs.bucket, Key: &u.key})
		if err != nil {
			return u.fail(fmt.Errorf("start the upload of %s: %w", u.fs.where("/"+u.key), err))
		}
		u.id = out.UploadId
	}
	n := int32(len(u.parts) + 1)
	body := u.buf
	u.buf, u.spare = u.spare[:0], nil
	u.inflight = make(chan partResult, 1)
	id := u.id
	go func(ch chan<- partResult) {
		out, err := u.fs.client.UploadPart(u.fs.ctx, &s3.UploadPartInput{Bucket: &u.fs.bucket, Key: &u.key, UploadId: id,
			PartNumber: aws.Int32(n), Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body)))})
		if err != nil {
			ch <- partResult{err: fmt.Errorf("upload part %d of %s: %w", n, u.fs.where("/"+u.key), err)}
			return
		}
		ch <- partResult{part: types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)}}
	}(u.inflight)
	u.spare = body
	return nil
}

// wait waits for the part in flight.
func (u *upload) wait() error {
	if u.inflight == nil {
		return u.err
	}
	r := <-u.inflight
	u.inflight = nil
	if r.err != nil {
		return u.fail(r.err)
	}
	u.parts = append(u.parts, r.part)
	return nil
}

func (u *upload) fail(err error) error {
	if u.err == nil {
		u.err = err
	}
	return u.err
}

// Close puts the last part and completes the object.
func (u *upload) Close() error {
	if u.err != nil {
		u.Abort()
		return u.err
	}
	if u.id == nil {
		_, err := u.fs.client.PutObject(u.fs.ctx, &s3.PutObjectInput{Bucket: &u.fs.bucket, Key: &u.key,
			Body: bytes.NewReader(u.buf), ContentLength: aws.Int64(int64(len(u.buf)))})
		u.buf = nil
		if err != nil {
			return u.fail(fmt.Errorf("put %s: %w", u.fs.where("/"+u.key), err))
		}
		return nil
	}
	if len(u.buf) > 0 {
		if err := u.sendPart(); err != nil {
			u.Abort()
			return err
		}
	}
	if err := u.wait(); err != nil {
		u.Abort()
		return err
	}
	_, err := u.fs.client.CompleteMultipartUpload(u.fs.ctx, &s3.CompleteMultipartUploadInput{Bucket: &u.fs.bucket, Key: &u.key,
		UploadId: u.id, MultipartUpload: &types.CompletedMultipartUpload{Parts: u.parts}})
	if err != nil {
		u.fail(fmt.Errorf("complete the upload of %s: %w", u.fs.where("/"+u.key), err))
		u.Abort()
		return u.err
	}
	u.id, u.buf, u.spare = nil, nil, nil
	return nil
}

// Abort gives the upload up: the parts sent are deleted with it.
func (u *upload) Abort() {
	if u.inflight != nil {
		<-u.inflight
		u.inflight = nil
	}
	u.fail(fmt.Errorf("upload of %s aborted", u.fs.where("/"+u.key)))
	u.buf, u.spare = nil, nil
	if u.id == nil {
		return
	}
	id := u.id
	u.id = nil
	_, err := u.fs.client.AbortMultipartUpload(u.fs.ctx, &s3.AbortMultipartUploadInput{Bucket: &u.fs.bucket, Key: &u.key, UploadId: id})
	var gone *types.NoSuchUpload
	if err != nil && !errors.As(err, &gone) {
		slog.Warn("S3File: abort of a multipart upload failed; the bucket's lifecycle rules remove its parts",
			"object", u.fs.where("/"+u.key), "error", err)
	}
}
