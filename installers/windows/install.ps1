<#
.SYNOPSIS
  Installs the ecf directory build as a Windows service.

.DESCRIPTION
  Run from an elevated PowerShell, inside the directory build made on Windows
  with `npm run package` (its node_modules then hold node-windows, whose
  WinSW wrapper runs the service):

    powershell -ExecutionPolicy Bypass -File installers\windows\install.ps1

  What it does:
    - copies the build to %ProgramFiles%\ecf (replaced whole on upgrade);
    - creates %ProgramData%\ecf, the data directory, open to SYSTEM and
      Administrators only;
    - initialises it (`ecf init --yes`) and chooses the secret store:
        -SecretStore file      (default) sealed files under the data directory,
                               key readable by SYSTEM and Administrators: the
                               service and an elevated `ecf` share certificates;
        -SecretStore keychain  the Windows Credential Manager through the same
                               keyring library, in the vault of the account the
                               service runs as (LocalSystem): upload certificates
                               through the API (POST /api/v1/certificates), which
                               runs inside the service, since a certificate
                               imported by another user lands in that user's vault;
    - registers and starts the service `ecf` (WinSW): automatic start, restart
      on failure, logs rolled in %ProgramData%\ecf\logs;
    - puts %ProgramFiles%\ecf\bin on the machine PATH, with ECF_DATA_DIR set
      machine-wide, so `ecf` in a new elevated console uses the same data.

.PARAMETER From
  The directory build; by default the one this script is in.
.PARAMETER Listen
  Flags for `ecf serve` (default: --host 127.0.0.1 --port 8787).
#>
[CmdletBinding()]
param(
  [string]$From = (Resolve-Path (Join-Path $PSScriptRoot '..\..')).Path,
  [ValidateSet('file', 'keychain')][string]$SecretStore = 'file',
  [string]$Listen = '--host 127.0.0.1 --port 8787',
  [switch]$NoStart
)
$ErrorActionPreference = 'Stop'

$principal = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
  throw 'Run this script from an elevated PowerShell (Run as administrator): it installs a service.'
}
foreach ($part in 'runtime\node.exe', 'app\bin\ecf.js') {
  if (-not (Test-Path (Join-Path $From $part))) { throw "$From is not an ecf directory build for Windows (no $part); make one on Windows with npm run package." }
}
$winsw = Join-Path $From 'app\node_modules\node-windows\bin\winsw\winsw.exe'
if (-not (Test-Path $winsw)) { throw "No WinSW in the build ($winsw): run npm run package on Windows, where npm installs node-windows." }

$target = Join-Path $env:ProgramFiles 'ecf'
$data = Join-Path $env:ProgramData 'ecf'
$serviceExe = Join-Path $target 'service\ecf-service.exe'

# ---- stop an installed service before replacing its files ----
if (Get-Service -Name 'ecf' -ErrorAction SilentlyContinue) {
  & $serviceExe stop | Out-Null
  & $serviceExe uninstall | Out-Null
}

# ---- the build ----
if (Test-Path $target) { Remove-Item -Recurse -Force $target }
Copy-Item -Recurse $From $target
New-Item -ItemType Directory -Force (Join-Path $target 'service') | Out-Null
Copy-Item $winsw $serviceExe
Copy-Item "$winsw.config" "$serviceExe.config" -ErrorAction SilentlyContinue

# ---- the data directory: SYSTEM and Administrators only ----
New-Item -ItemType Directory -Force $data | Out-Null
$acl = New-Object Security.AccessControl.DirectorySecurity
$acl.SetAccessRuleProtection($true, $false)
foreach ($who in 'NT AUTHORITY\SYSTEM', 'BUILTIN\Administrators') {
  $acl.AddAccessRule((New-Object Security.AccessControl.FileSystemAccessRule($who, 'FullControl', 'ContainerInherit,ObjectInherit', 'None', 'Allow')))
}
Set-Acl -Path $data -AclObject $acl

# ---- initialise ----
$node = Join-Path $target 'runtime\node.exe'
$cli = Join-Path $target 'app\bin\ecf.js'
& $node $cli init --yes --data-dir $data | Out-Null
if ($LASTEXITCODE -ne 0) { throw "ecf init failed ($LASTEXITCODE)" }
& $node $cli settings set secrets.store $SecretStore --data-dir $data | Out-Null
if ($LASTEXITCODE -ne 0) { throw "ecf settings set secrets.store failed ($LASTEXITCODE)" }

# ---- the service (WinSW configuration beside its executable) ----
$xml = @"
<service>
  <id>ecf</id>
  <name>ecf e-CF appliance</name>
  <description>The e-CF appliance: local API and background jobs (submission, webhooks, notices).</description>
  <executable>$node</executable>
  <arguments>"$cli" serve $Listen</arguments>
  <env name="ECF_DATA_DIR" value="$data" />
  <startmode>Automatic</startmode>
  <delayedAutoStart>true</delayedAutoStart>
  <onfailure action="restart" delay="5 sec" />
  <onfailure action="restart" delay="30 sec" />
  <resetfailure>1 hour</resetfailure>
  <stoptimeout>30 sec</stoptimeout>
  <logpath>$data\logs</logpath>
  <log mode="roll-by-size"><sizeThreshold>10240</sizeThreshold><keepFiles>8</keepFiles></log>
</service>
"@
Set-Content -Path (Join-Path $target 'service\ecf-service.xml') -Value $xml -Encoding UTF8
& $serviceExe install
if ($LASTEXITCODE -ne 0) { throw "WinSW could not install the service ($LASTEXITCODE)" }

# ---- the CLI for people (elevated consoles) ----
[Environment]::SetEnvironmentVariable('ECF_DATA_DIR', $data, 'Machine')
$path = [Environment]::GetEnvironmentVariable('Path', 'Machine')
$bin = Join-Path $target 'bin'
if (($path -split ';') -notcontains $bin) { [Environment]::SetEnvironmentVariable('Path', "$path;$bin", 'Machine') }

if ($NoStart) {
  Write-Host "ecf is installed; start it with: Start-Service ecf"
} else {
  & $serviceExe start
  Write-Host "ecf is running: Get-Service ecf; logs in $data\logs"
}
Write-Host "Use ecf from a new elevated console (it reads ECF_DATA_DIR=$data)."
