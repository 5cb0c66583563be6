# Runs omp's hook fast path (`python -m omp.hooks EVENT`, minus runpy's start-up cost) with
# the right Python (Windows).
# Order: $env:OMP_PYTHON; the interpreter `omp install` baked in beside this script; the .venv of
# the checkout this script sits in; the Python beside `omp` on PATH; `python`/`py` that can
# import omp. A hook must never break a Copilot session, so when nothing is found it prints `{}`
# and a one-line hint on stderr.
param([Parameter(Mandatory = $true)][string]$HookEvent)
$ErrorActionPreference = 'SilentlyContinue'
# The working directory (the plugin's, or the project's) must not shadow the installed omp.
$dropCwd = 'import sys; sys.path and not sys.path[0] and sys.path.pop(0)'
$py = $env:OMP_PYTHON
$baked = Join-Path $PSScriptRoot 'interpreter'
if (-not $py -and (Test-Path $baked)) {
    $py = (Get-Content -TotalCount 1 $baked).Trim()
    if (-not (Test-Path $py)) {
        [Console]::Error.WriteLine("omp: the Python that registered these hooks ($py) is gone; using omp on PATH (fix: run omp install again)")
        $py = $null
    }
}
if (-not $py) {
    # Run from a checkout (the repository added as a marketplace loads omp/plugin/ live): the
    # checkout's own .venv, activated or not, as hooks/run does.
    foreach ($candidate in @((Join-Path $PSScriptRoot '..\..\..\.venv\Scripts\python.exe'), (Join-Path $PSScriptRoot '..\.venv\Scripts\python.exe'))) {
        if (Test-Path $candidate) {
            & $candidate -c "$dropCwd; import omp.hooks" 2>$null | Out-Null
            if ($LASTEXITCODE -eq 0) { $py = $candidate; break }
        }
    }
}
if (-not $py) {
    $omp = Get-Command omp -CommandType Application | Select-Object -First 1
    if ($omp) {
        # pip puts omp.exe in <env>\Scripts; the interpreter sits beside it or one level up.
        $scripts = Split-Path $omp.Source
        foreach ($candidate in @((Join-Path $scripts 'python.exe'), (Join-Path (Split-Path $scripts) 'python.exe'))) {
            if (Test-Path $candidate) { $py = $candidate; break }
        }
    }
}
if (-not $py) {
    foreach ($candidate in @('python', 'py')) {
        if (Get-Command $candidate -CommandType Application) {
            & $candidate -c "$dropCwd; import omp.hooks" 2>$null | Out-Null
            if ($LASTEXITCODE -eq 0) { $py = $candidate; break }
        }
    }
}
if (-not $py) {
    [Console]::Error.WriteLine('omp: no Python with omp installed was found for this hook (fix: pip install omp, then omp install)')
    Write-Output '{}'
    exit 0
}
# A native command inherits this script's stdin (the hook's JSON payload) and stdout.
& $py -c "$dropCwd; from omp.hooks import main; sys.exit(main())" $HookEvent
exit 0
