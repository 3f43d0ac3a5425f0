package table

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// backoff paces the retries of one operation: exponential delays with full
// jitter, until a deadline.
type backoff struct {
	base, max time.Duration
	deadline  time.Time
	attempt   int
}

func (t *Table) newBackoff() *backoff {
	return &backoff{base: t.opts.BaseDelay, max: t.opts.MaxDelay, deadline: time.Now().Add(t.opts.RetryTimeout)}
}

// wait sleeps before the next retry. It returns false, without sleeping,
// if the sleep would pass the deadline, and ctx.Err() if ctx ends first.
func (b *backoff) wait(ctx context.Context) (bool, error) {
	d := b.base << min(b.attempt, 30)
	if d <= 0 || d > b.max {
		d = b.max
	}
	b.attempt++
	sleep := time.Duration(rand.Int64N(int64(d) + 1))
	if time.Now().Add(sleep).After(b.deadline) {
		return false, nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(sleep).After(dl) {
		return false, nil
	}
	timer := time.NewTimer(sleep)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-timer.C:
		return true, nil
	}
}

// send makes the call of operation op with input in through t.call
// (retries, stats) and returns the output of the attempt that succeeded.
// The caller records the capacity it consumed.
func send[In, Out any](ctx context.Context, t *Table, op string, call func(context.Context, In, ...func(*dynamodb.Options)) (Out, error), in In) (Out, error) {
	var out Out
	err := t.call(ctx, op, func() (err error) {
		out, err = call(ctx, in)
		return err
	})
	return out, err
}

// call runs fn, a single API call of operation op, retrying it on
// throttling and 5xx errors with backoff, at most MaxAttempts times and
// until RetryTimeout. It records each attempt's outcome in the stats; fn
// records consumed capacity itself.
func (t *Table) call(ctx context.Context, op string, fn func() error) error {
	b := t.newBackoff()
	for attempt := 1; ; attempt++ {
		err := fn()
		t.called(op, err)
		if err == nil || !retryable(err) || attempt >= t.opts.MaxAttempts || ctx.Err() != nil {
			return err
		}
		ok, werr := b.wait(ctx)
		if werr != nil || !ok {
			return err
		}
		t.stats.retry(op)
	}
}
