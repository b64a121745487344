package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/examples/internal/clitest"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stretchr/testify/require"
)

// bin is the example, built once by TestMain, run by the tests as a user
// would run it.
var bin string

func TestMain(m *testing.M) { clitest.MainRace(m, "chat", &bin) }

// result is what a run of the example printed, and its exit status.
type result = clitest.Result

// dropEnv are the prefixes of the variables the example reads, kept out of
// its environment in the tests.
var dropEnv = []string{"OPENAI_", "OLLAMA_", "CHAT_"}

// env is the test's environment without the variables the example reads,
// plus extra.
func env(extra ...string) []string { return append(clitest.Env(dropEnv), extra...) }

// command prepares the example in dir; it is killed if the test runs too long.
func command(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	return clitest.Command(t, bin, dir, dropEnv, args...)
}

// execute runs the prepared command with stdin and returns its output and exit status.
func execute(t *testing.T, cmd *exec.Cmd, stdin string) result {
	t.Helper()
	return clitest.Execute(t, cmd, stdin)
}

func TestOfflineChatCallsToolsAndRemembersTheThread(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := execute(t, command(t, dir), "hello\nweather in Oslo and Paris?\nwhat is 12 * 7\n\n")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	for _, want := range []string{
		"chat on thread chat (offline: a scripted model), saved in chat.db.",
		"assistant: I can tell you the weather in Oslo, Paris, Tokyo or Lima",
		"  → get_weather {\"city\":\"Oslo\"}\n  → get_weather {\"city\":\"Paris\"}\n",
		// Each call is a task of its own: answers print as they finish.
		"  ← get_weather: Oslo: sunny, 21°C\n",
		"  ← get_weather: Paris: light rain, 16°C\n",
		"assistant: Here is what I found: Oslo: sunny, 21°C; Paris: light rain, 16°C.\n",
		"  ← calculate: 12 * 7 = 84\nassistant: Here is what I found: 12 * 7 = 84.\n",
		"bye",
	} {
		require.Contains(t, res.Stdout, want)
	}
	require.FileExists(t, filepath.Join(dir, defaultDB))

	// The next run continues the same conversation.
	res = execute(t, command(t, dir), "weather in Lima\n")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	require.Contains(t, res.Stdout, "continuing the conversation: 11 messages, 5 model calls so far")
	require.Contains(t, res.Stdout, "Lima: fog, 18°C")
}

func TestReviewApprovesEditsRejectsAndWaitsAcrossRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := execute(t, command(t, dir, "-review"), "weather in Oslo and Lima\nmaybe\ne\n{bad\n{\"city\":\"Tokyo\"}\nn\nnot now\n\n")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	for _, want := range []string{
		"review: get_weather {\"city\":\"Oslo\"}",
		`please answer y, n or e (not "maybe")`,
		`"{bad" is not JSON; try again`,
		"review: get_weather {\"city\":\"Lima\"}",
		"← get_weather: Tokyo: cloudy, 24°C",
		"← get_weather: The reviewer rejected this call; it was not run. Reason: not now",
	} {
		require.Contains(t, res.Stdout, want)
	}
	require.NotContains(t, res.Stdout, "Lima: fog")

	// Input ends at the review: the call waits, saved, for the next run.
	res = execute(t, command(t, dir, "-review"), "weather in Paris\n")
	require.Equal(t, exitFailed, res.Code)
	require.Contains(t, res.Stdout, "The tool call waits for your review; answer it with:\n  go run ./examples/chat -resume -thread chat -db chat.db -review\n",
		"the hint has every flag the graph needs: without -review it has no review node")
	res = execute(t, command(t, dir, "-review"), "")
	require.Equal(t, exitFailed, res.Code)
	require.Contains(t, res.Stderr, "thread chat has an unfinished turn (next: review); finish it with:\n  go run ./examples/chat -resume -thread chat -db chat.db -review\n")

	// Following a hint without -review is a graph mismatch, said as one.
	res = execute(t, command(t, dir, "-resume"), "")
	require.Equal(t, exitFailed, res.Code)
	require.NotContains(t, res.Stderr, "corrupt")
	require.Contains(t, res.Stderr, `the thread was saved by a different graph: it schedules node "review", which this graph does not have`)
	require.Contains(t, res.Stderr, "the thread was saved with -review (its turn waits in the review node); run it with the flags it was started with:\n  go run ./examples/chat -resume -thread chat -db chat.db -review\n")

	res = execute(t, command(t, dir, "-review", "-resume"), "y\n\n")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	require.Contains(t, res.Stdout, "resuming the unfinished turn (next: review)")
	require.Contains(t, res.Stdout, "assistant: Here is what I found: Paris: light rain, 16°C.")
}

func TestCtrlCLeavesTheTurnResumable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := command(t, dir, "-thread", "t-ctrl-c")
	cmd.Env = env(slowToolEnv + "=calculate")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	_, err = io.WriteString(stdin, "weather in Oslo, and 2 + 3?\n")
	require.NoError(t, err)
	var first strings.Builder
	sc := bufio.NewScanner(stdout)
	// Ctrl-C once calculate blocks and get_weather, its sibling in the
	// step, has answered (its task's writes are saved before its update is
	// streamed).
	blocked, answered := false, false
	for !(blocked && answered) && sc.Scan() {
		first.WriteString(sc.Text() + "\n")
		blocked = blocked || strings.Contains(sc.Text(), "(test hook) calculate blocks")
		answered = answered || strings.Contains(sc.Text(), "← get_weather: Oslo: sunny, 21°C")
	}
	require.True(t, blocked && answered, "the turn never reached the tools: %s", first.String())
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	rest, err := io.ReadAll(stdout)
	require.NoError(t, err)
	first.Write(rest)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, exitInterrupted, ee.ExitCode(), stderr.String())
	require.Contains(t, first.String(), "Interrupted. The thread is saved; finish the turn with:\n  go run ./examples/chat -resume -thread t-ctrl-c -db chat.db")

	res := execute(t, command(t, dir, "-resume", "-thread", "t-ctrl-c"), "\n")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	require.Contains(t, res.Stdout, "resuming the unfinished turn (next: tools)")
	require.Contains(t, res.Stdout, "← calculate: 2 + 3 = 5")
	require.Contains(t, res.Stdout, "assistant: Here is what I found: Oslo: sunny, 21°C; 2 + 3 = 5.")
	require.NotContains(t, res.Stdout, "→ get_weather", "the model is not asked again for the calls")
	require.Contains(t, res.Stdout, "← get_weather: Oslo: sunny, 21°C (answered before, not run again)", "the call that had finished is not run again")
}

// With -model openai, the chat goes through langchaingo's OpenAI client
// (here to the local test server).
func TestOpenAIModelThroughLangchaingo(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Tokyo"}`}}},
		fakechat.Turn{Once: true, Content: "Cloudy in Tokyo, 24 degrees."},
	)
	dir := t.TempDir()
	cmd := command(t, dir, "-model", "openai")
	cmd.Env = env("OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_MODEL=test")
	res := execute(t, cmd, "how is Tokyo?\n\n")
	require.Equal(t, exitOK, res.Code, res.Stderr)
	require.Contains(t, res.Stdout, "(OpenAI model test at "+srv.URL+"/v1)")
	require.Contains(t, res.Stdout, "  → get_weather {\"city\":\"Tokyo\"}\n  ← get_weather: Tokyo: cloudy, 24°C\n")
	require.Contains(t, res.Stdout, "assistant: Cloudy in Tokyo, 24 degrees.\n")
	require.NotContains(t, res.Stdout, `[{"id"`, "the streamed tool-call JSON is not printed")
	require.Contains(t, srv.Requests()[0], systemPrompt)

	cmd = command(t, dir, "-model", "openai")
	res = execute(t, cmd, "")
	require.Equal(t, exitUsage, res.Code)
	require.Contains(t, res.Stderr, "-model openai needs OPENAI_API_KEY")
}

func TestCtrlCAtThePromptExitsWithTheCommandToGoOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := command(t, dir, "-thread", "t-prompt", "-review")
	stdin, err := cmd.StdinPipe() // kept open: the program waits at "you: "
	require.NoError(t, err)
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	// Read up to the prompt, which ends no line.
	out := bufio.NewReader(stdout)
	var seen strings.Builder
	for !strings.HasSuffix(seen.String(), "you: ") {
		b, err := out.ReadByte()
		require.NoError(t, err, "no prompt: %s", seen.String())
		seen.WriteByte(b)
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	rest, err := io.ReadAll(out)
	require.NoError(t, err)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "the first Ctrl-C ends the program")
	require.Equal(t, exitInterrupted, ee.ExitCode(), stderr.String())
	require.Equal(t, "\nInterrupted. The conversation is saved; go on with it with:\n  go run ./examples/chat -thread t-prompt -db chat.db -review\n", string(rest))
}
