; Registro's Windows installer, built with a stock makensis (Debian's `nsis`, 3.08) by `scripts/build-windows.sh
; installer`, nothing downloaded. It stands in for Tauri's own NSIS installer, which Tauri's bundler cannot build
; here without one file from GitHub (its nsis_tauri_utils.dll plugin; `build-windows.sh tauri-nsis`); the release
; workflow (.github/workflows/release.yml) builds that one on a Windows runner. A 64-bit installer (the app is
; x64 only), per user (no administrator rights, like Tauri's `installMode: currentUser`), into
; %LOCALAPPDATA%\Programs\Registro: registro-app.exe (the window) and WebView2Loader.dll, registro.exe (the CLI), data\examples\ (the
; translation example pools, found by both binaries as <exe dir>\data), THIRD_PARTY.md, Start menu and desktop
; shortcuts, an uninstaller listed in Settings -> Apps. The uninstaller leaves the user's own data in place (the
; database under %APPDATA%, the models under %LOCALAPPDATA%\registro\models).
;
; makensis -V2 -DSRCDIR=<staged files> -DVERSION=0.1.0 -DOUTFILE=<setup.exe> -DICON=<icon.ico> installer.nsi
Unicode true
Target amd64-unicode
ManifestDPIAware true
SetCompressor /SOLID lzma

!ifndef VERSION
  !define VERSION "0.1.0"
!endif
!define PRODUCT "Registro"
!define PUBLISHER "Registro"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Registro"
; WebView2 Runtime (the window's web view); Windows 11 and current Windows 10 have it.
!define WEBVIEW2_GUID "{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"

Name "${PRODUCT}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${PRODUCT}"
InstallDirRegKey HKCU "Software\${PRODUCT}" "InstallDir"
RequestExecutionLevel user
BrandingText "${PRODUCT} ${VERSION}"
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "${PRODUCT}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${PRODUCT} installer"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "LegalCopyright" "MIT OR Apache-2.0"

!include "MUI2.nsh"
!include "x64.nsh"
!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\registro-app.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${PRODUCT}"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "German"
!insertmacro MUI_LANGUAGE "French"
!insertmacro MUI_LANGUAGE "Italian"
!insertmacro MUI_LANGUAGE "Spanish"
!insertmacro MUI_LANGUAGE "PortugueseBR"
!insertmacro MUI_LANGUAGE "Japanese"
!insertmacro MUI_LANGUAGE "Korean"

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP "${PRODUCT} needs 64-bit Windows." /SD IDOK
    Abort
  ${EndIf}
  SetRegView 64
FunctionEnd

Section "Registro" SecMain
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; A reinstall replaces the example pools wholesale (a pool removed upstream must not linger).
  RMDir /r "$INSTDIR\data\examples"
  File "${SRCDIR}\registro-app.exe"
  ; The MinGW build of the window loads the WebView2 loader as a DLL (an MSVC build links it statically); Microsoft's
  ; redistributable, from the webview2-com-sys crate, copied beside the exe by tauri-build.
  File "${SRCDIR}\WebView2Loader.dll"
  File "${SRCDIR}\registro.exe"
  File "${SRCDIR}\THIRD_PARTY.md"
  SetOutPath "$INSTDIR\data"
  File /r "${SRCDIR}\data\examples"
  SetOutPath "$INSTDIR"

  CreateShortCut "$SMPROGRAMS\${PRODUCT}.lnk" "$INSTDIR\registro-app.exe"
  CreateShortCut "$DESKTOP\${PRODUCT}.lnk" "$INSTDIR\registro-app.exe"

  WriteUninstaller "$INSTDIR\uninstall.exe"
  WriteRegStr HKCU "Software\${PRODUCT}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${PRODUCT}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\registro-app.exe"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1

  ; The window needs the WebView2 Runtime: say where to get it when neither the machine nor the user has it.
  ReadRegStr $0 HKLM "SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${If} $0 == ""
    ReadRegStr $0 HKCU "Software\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${EndIf}
  ${If} $0 == ""
  ${OrIf} $0 == "0.0.0.0"
    MessageBox MB_YESNO|MB_ICONINFORMATION "${PRODUCT}'s window needs the Microsoft Edge WebView2 Runtime, which is not installed. Open its download page now? (The command-line tool registro.exe works without it.)" /SD IDNO IDNO +2
      ExecShell "open" "https://developer.microsoft.com/microsoft-edge/webview2/#download"
  ${EndIf}
SectionEnd

Function un.onInit
  SetRegView 64
FunctionEnd

Section "Uninstall"
  Delete "$INSTDIR\registro-app.exe"
  Delete "$INSTDIR\WebView2Loader.dll"
  Delete "$INSTDIR\registro.exe"
  Delete "$INSTDIR\THIRD_PARTY.md"
  RMDir /r "$INSTDIR\data\examples"
  RMDir "$INSTDIR\data"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${PRODUCT}.lnk"
  Delete "$DESKTOP\${PRODUCT}.lnk"
  DeleteRegKey HKCU "${UNINST_KEY}"
  DeleteRegKey HKCU "Software\${PRODUCT}"
SectionEnd
