package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
)

// Config configures a Service. Jobs, Memory, Threads and Market are required.
type Config struct {
	Jobs    JobStore
	Memory  MemoryStore
	Threads ThreadStore
	Market  Market
	// Profiles, when set, gives each account's agent profile: its default slippage, the largest
	// trade it may compose per pairing asset and the tools it may use. Without it every tool
	// serves everyone, with no cap.
	Profiles Profiles
	// Balances, when set, lets a composed trade say when the wallet holds less than it spends.
	Balances Balances
	// Launcher, when set, adds the launch, claim-fees, fees, earnings and daily-limit tools.
	Launcher Launcher
	// Orders, when set, adds the order tools: propose_order and cancel_order compose, list_orders
	// reads; none of them arms or disarms anything.
	Orders Orders
	// Signal, when set, tells the runners of other processes sharing Jobs that a job was
	// submitted, so they claim it at once instead of at their next poll.
	Signal JobSignal
	// Changes, when set, reports the changes to jobs of every process sharing Jobs: while
	// WatchJobs runs, polls of a job in flight are answered from memory until it changes.
	Changes JobChanges
	// Notifier, when set, builds the events of every job a runner of this process ends (the
	// store commits them with the end) and hears that they were committed.
	Notifier Notifier
	// LLM plans the turns; default the offline planner.
	LLM LLM
	// Model is the model name passed to the LLM when a request names none; default "offline".
	Model string
	// Models are the other model names a request may choose.
	Models []string

	// MaxPending caps each wallet's pending jobs; default 10.
	MaxPending int
	// MaxPromptBytes bounds a prompt; default 4,000.
	MaxPromptBytes int
	// MaxHistory bounds the messages a request may pass as history; default 20, each bounded
	// by MaxPromptBytes.
	MaxHistory int
	// ThreadTurns is how many earlier turns of a thread a turn sees; default 10.
	ThreadTurns int
	// MaxSteps bounds the planner steps of one turn; default 6.
	MaxSteps int
	// MaxMemories caps each wallet's memory entries; default 50. MaxMemoryValue bounds an
	// entry's value; default 500 bytes.
	MaxMemories    int
	MaxMemoryValue int

	// Now is the clock; default time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

func (c *Config) withDefaults() {
	if c.LLM == nil {
		c.LLM = Offline{}
	}
	if c.Model == "" {
		c.Model = OfflineModel
	}
	if c.MaxPending == 0 {
		c.MaxPending = 10
	}
	if c.MaxPromptBytes == 0 {
		c.MaxPromptBytes = 4000
	}
	if c.MaxHistory == 0 {
		c.MaxHistory = 20
	}
	if c.ThreadTurns == 0 {
		c.ThreadTurns = 10
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = 6
	}
	if c.MaxMemories == 0 {
		c.MaxMemories = 50
	}
	if c.MaxMemoryValue == 0 {
		c.MaxMemoryValue = 500
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

func (c *Config) validate() error {
	if c.Jobs == nil || c.Memory == nil || c.Threads == nil || c.Market == nil {
		return errors.New("agent: Jobs, Memory, Threads and Market are required")
	}
	for _, n := range []int{c.MaxPending, c.MaxPromptBytes, c.MaxHistory, c.ThreadTurns, c.MaxSteps, c.MaxMemories, c.MaxMemoryValue} {
		if n < 0 {
			return errors.New("agent: limits must not be negative")
		}
	}
	return nil
}

// Service runs the agent: jobs, streamed turns, memory and the tools behind them.
type Service struct {
	cfg    Config
	tools  []Tool
	byName map[string]*Tool
	// wake nudges an in-process runner when a job is submitted, so it does not wait for its
	// next poll.
	wake chan struct{}
	// ended answers the last poll of the jobs that ended; live, while WatchJobs runs, the polls
	// of those in flight.
	ended *endedJobs
	live  *liveJobs
	// context reads a turn's memory and thread at once, when the stores can.
	context TurnContextReader
}

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, wake: make(chan struct{}, 1), ended: newEndedJobs(), live: newLiveJobs()}
	if r, ok := cfg.Memory.(TurnContextReader); ok && sameValue(cfg.Memory, cfg.Threads) {
		s.context = r
	}
	s.tools = s.buildTools()
	s.byName = make(map[string]*Tool, len(s.tools))
	for i := range s.tools {
		s.byName[s.tools[i].Name] = &s.tools[i]
	}
	return s, nil
}

// Tools returns the agent's tools, for surfaces that offer them directly (MCP).
func (s *Service) Tools() []Tool { return slices.Clone(s.tools) }

// RunToolParams is one tool call outside a turn.
type RunToolParams struct {
	Wallet common.Address
	Name   string
	Args   []byte
	// ReadOnly is set for a read-only API key: the memory tools refuse.
	ReadOnly bool
}

// RunTool runs one tool for a wallet outside a turn (an MCP call), with the wallet's memory.
func (s *Service) RunTool(ctx context.Context, p RunToolParams) (ToolResult, error) {
	t, ok := s.byName[p.Name]
	if !ok {
		return ToolResult{}, fmt.Errorf("%w: no tool %q", curvekit.ErrNotFound, p.Name)
	}
	c, err := s.newCall(ctx, p.Wallet, p.ReadOnly)
	if err != nil {
		return ToolResult{}, err
	}
	if err := c.allows(p.Name); err != nil {
		return ToolResult{}, err
	}
	return t.Run(ctx, c, p.Args)
}

func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Millisecond) }

func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// idPattern is the shape of a client-chosen thread id: short and printable.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// SubmitParams is a job to create. Wallet comes from the caller's credential, never the body.
type SubmitParams struct {
	Wallet common.Address
	// ReadOnly is set for a read-only API key: the job's turn may not change memory.
	ReadOnly bool
	Prompt   string
	ThreadID string // a thread of Wallet; empty starts a new one
	History  []Message
	Model    string
}

// Problems of a prompt request, all at once.
func (s *Service) check(prompt, thread, model string, history []Message) error {
	var p curvekit.Problems
	switch {
	case strings.TrimSpace(prompt) == "":
		p = append(p, "prompt is required")
	case len(prompt) > s.cfg.MaxPromptBytes:
		p = append(p, fmt.Sprintf("prompt must be at most %d bytes", s.cfg.MaxPromptBytes))
	case !utf8.ValidString(prompt):
		p = append(p, "prompt must be UTF-8 text")
	}
	if thread != "" && !idPattern.MatchString(thread) {
		p = append(p, "threadId must be 1 to 64 letters, digits, '-' or '_'")
	}
	if model != "" && model != s.cfg.Model && !slices.Contains(s.cfg.Models, model) {
		p = append(p, fmt.Sprintf("model must be one of %s", strings.Join(append([]string{s.cfg.Model}, s.cfg.Models...), ", ")))
	}
	if len(history) > s.cfg.MaxHistory {
		p = append(p, fmt.Sprintf("history must hold at most %d messages", s.cfg.MaxHistory))
	}
	for i, m := range history {
		if m.Role != RoleUser && m.Role != RoleAssistant {
			p = append(p, fmt.Sprintf("history[%d].role must be user or assistant", i))
		}
		if len(m.Content) > s.cfg.MaxPromptBytes || !utf8.ValidString(m.Content) {
			p = append(p, fmt.Sprintf("history[%d].content must be UTF-8 text of at most %d bytes", i, s.cfg.MaxPromptBytes))
		}
		if len(m.ToolCalls) > 0 || m.ToolCallID != "" {
			p = append(p, fmt.Sprintf("history[%d] may hold only role and content", i))
		}
	}
	if len(p) > 0 {
		return p
	}
	return nil
}

// Submit validates and stores a pending job for the wallet; a wallet at its pending cap is
// curvekit.ErrLimited. The thread is the wallet's own thread of that id (threads belong to
// wallets), so whichever ids other wallets use, an accepted job never fails for its thread.
func (s *Service) Submit(ctx context.Context, p SubmitParams) (Job, error) {
	if err := s.check(p.Prompt, p.ThreadID, p.Model, p.History); err != nil {
		return Job{}, err
	}
	thread := p.ThreadID
	if thread == "" {
		thread = newID("thr_")
	}
	mark := s.live.begin()
	j, err := s.cfg.Jobs.InsertJob(ctx, &InsertJobParams{
		ID: newID("job_"), ThreadID: thread, Wallet: p.Wallet, ReadOnly: p.ReadOnly, Prompt: p.Prompt, History: p.History,
		Model: p.Model, CreatedAt: s.now(), MaxPending: s.cfg.MaxPending,
	})
	if err != nil {
		return Job{}, err
	}
	s.live.put(j, mark)
	s.nudge()
	if s.cfg.Signal != nil {
		if err := s.cfg.Signal.Signal(ctx); err != nil {
			s.cfg.Logger.WarnContext(ctx, "agent: signalling a new job to other runners failed; they poll", "err", err)
		}
	}
	return j, nil
}

// JobSignal carries "a job was submitted" between the processes that share a JobStore: a wake-up
// without data, so a lost signal only delays a job until a runner's next poll.
type JobSignal interface {
	// Signal tells every listening process that a job was submitted.
	Signal(ctx context.Context) error
	// Listen calls heard for each signal until ctx ends, reconnecting as needed.
	Listen(ctx context.Context, heard func()) error
}

// nudge wakes one idle worker of an in-process runner.
func (s *Service) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Job returns a job of the wallet: curvekit.ErrNotFound when unknown, curvekit.ErrForbidden when
// another wallet created it. It is one read by primary key, or none: an ended job never changes,
// so once this process saw it ended its polls are answered from memory; while WatchJobs runs, so
// are the polls of a job in flight, until a change to it is reported and for a second at most,
// so a claim or a note committed by another process shows within that second. The slices of the
// Job may be shared with other callers: read them, never modify them.
func (s *Service) Job(ctx context.Context, wallet common.Address, id string) (Job, error) {
	if !validJobID(id) {
		return Job{}, fmt.Errorf("%w: no job %s", curvekit.ErrNotFound, id)
	}
	j, ok := s.ended.get(id)
	if !ok {
		j, ok = s.live.get(id)
	}
	if !ok {
		mark := s.live.begin()
		var err error
		if j, err = s.cfg.Jobs.GetJob(ctx, id); err != nil {
			return Job{}, err
		}
		s.ended.put(j)
		s.live.put(j, mark)
	}
	if j.Wallet != wallet {
		return Job{}, fmt.Errorf("%w: the job belongs to another wallet", curvekit.ErrForbidden)
	}
	return j, nil
}

func validJobID(id string) bool { return len(id) <= 64 && idPattern.MatchString(id) }

// Cancel cancels a pending job of the wallet: curvekit.ErrConflict once it runs or ended.
func (s *Service) Cancel(ctx context.Context, wallet common.Address, id string) (Job, error) {
	if !validJobID(id) {
		return Job{}, fmt.Errorf("%w: no job %s", curvekit.ErrNotFound, id)
	}
	j, err := s.cfg.Jobs.CancelJob(ctx, &CancelJobParams{ID: id, Wallet: wallet, At: s.now()})
	if err == nil {
		s.ended.put(j)
	}
	return j, err
}

// Memories returns everything stored for the wallet.
func (s *Service) Memories(ctx context.Context, wallet common.Address) ([]MemoryEntry, error) {
	return s.cfg.Memory.Memories(ctx, wallet)
}

// memoryKey is the shape of a memory key: it travels as a path segment.
var memoryKey = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// Remember stores one entry for the wallet; keys are lower-cased.
func (s *Service) Remember(ctx context.Context, wallet common.Address, key, value string) error {
	key = strings.ToLower(strings.TrimSpace(key))
	value = strings.TrimSpace(value)
	var p curvekit.Problems
	if !memoryKey.MatchString(key) {
		p = append(p, "key must be 1 to 64 lower-case letters, digits, '.', '-' or '_'")
	}
	if value == "" || len(value) > s.cfg.MaxMemoryValue || !utf8.ValidString(value) {
		p = append(p, fmt.Sprintf("value must be UTF-8 text of 1 to %d bytes", s.cfg.MaxMemoryValue))
	}
	if len(p) > 0 {
		return p
	}
	return s.cfg.Memory.PutMemory(ctx, &PutMemoryParams{Wallet: wallet, Key: key, Value: value, At: s.now(), MaxEntries: s.cfg.MaxMemories})
}

// Forget deletes one entry; curvekit.ErrNotFound when the wallet has no such key.
func (s *Service) Forget(ctx context.Context, wallet common.Address, key string) error {
	key = strings.ToLower(strings.TrimSpace(key))
	if !memoryKey.MatchString(key) {
		return fmt.Errorf("%w: no memory %q", curvekit.ErrNotFound, key)
	}
	return s.cfg.Memory.DeleteMemory(ctx, wallet, key)
}

func (s *Service) memoryMap(ctx context.Context, wallet common.Address) (map[string]string, error) {
	entries, err := s.cfg.Memory.Memories(ctx, wallet)
	if err != nil {
		return nil, err
	}
	return entryMap(entries), nil
}

func entryMap(entries []MemoryEntry) map[string]string {
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		m[e.Key] = e.Value
	}
	return m
}

// turnContext reads what a turn starts from: the wallet's memory and the thread's last turns.
func (s *Service) turnContext(ctx context.Context, wallet common.Address, thread string) (map[string]string, []Turn, error) {
	p := &TurnsParams{Wallet: wallet, Thread: thread, Limit: s.cfg.ThreadTurns}
	if s.context != nil {
		entries, turns, err := s.context.TurnContext(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return entryMap(entries), turns, nil
	}
	mem, err := s.memoryMap(ctx, wallet)
	if err != nil {
		return nil, nil, err
	}
	turns, err := s.cfg.Threads.Turns(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	return mem, turns, nil
}

// sameValue reports whether a and b are one value (a store that fills two ports).
func sameValue(a, b any) bool {
	t := reflect.TypeOf(a)
	return t != nil && t == reflect.TypeOf(b) && t.Comparable() && a == b
}
