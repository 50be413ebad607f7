DROP FUNCTION public.get_fan_first_screen();
DROP FUNCTION public.get_sponsor_first_screen(integer);
DROP FUNCTION public.get_artist_first_screen(text, date, date);
DROP FUNCTION public.get_app_bootstrap(text, text);
