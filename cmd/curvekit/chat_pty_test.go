//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestAgentChatOnATerminal drives `curvekit agent chat` on a pseudo-terminal as a person
// would: it types a line only once the prompt shows, and waits for each answer before the next.
func TestAgentChatOnATerminal(t *testing.T) {
	s := startServer(t)
	key, _ := s.apiKey(t, s.signIn(t, "pty-chat"), `{}`)
	master, tty := openPTY(t)
	cmd := exec.Command(binary, "agent", "chat", "--interval", "100ms")
	cmd.Env = append(os.Environ(), "CURVEKIT_SERVER="+s.base, "CURVEKIT_API_KEY="+key)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	screen := &screen{}
	go screen.read(master)
	t.Cleanup(func() { master.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })

	screen.waitFor(t, "you> ", 1)
	fmt.Fprint(master, "price of DETH\r")
	screen.waitFor(t, "agent> ", 1)
	screen.waitFor(t, "you> ", 2)
	fmt.Fprint(master, "buy 0.01 ETH of DETH\r")
	screen.waitFor(t, "Unsigned transaction 1 of 1", 1)
	screen.waitFor(t, "you> ", 3)
	fmt.Fprint(master, "/quit\r")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chat ended with %v\n%s", err, screen.text())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("chat did not end after /quit\n%s", screen.text())
	}
	out := screen.text()
	// What was typed is echoed by the terminal, and each answer follows its question.
	q, a := strings.Index(out, "price of DETH"), strings.Index(out, "agent> ")
	if q < 0 || a < q || !strings.Contains(out[a:], "DETH") {
		t.Errorf("conversation on the terminal:\n%s", out)
	}
}

// openPTY opens a pseudo-terminal pair: the master this test types into and reads from, and
// the terminal the command runs on.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// screen accumulates what the terminal shows.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) read(f *os.File) {
	b := make([]byte, 4096)
	for {
		n, err := f.Read(b)
		s.mu.Lock()
		s.buf.Write(b[:n])
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen shows want at least n times.
func (s *screen) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(s.text(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q %d times:\n%s", want, n, s.text())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
